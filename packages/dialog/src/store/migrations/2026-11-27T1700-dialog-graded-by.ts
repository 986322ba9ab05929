import type { Kysely, Migration } from "kysely";

// Who gave each iteration's reviewer scores (server_model, host, sampling); null on rows recorded before.
export const dialogGradedBy: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("dialog_iterations").addColumn("graded_by", "text").execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("dialog_iterations").dropColumn("graded_by").execute();
  },
};

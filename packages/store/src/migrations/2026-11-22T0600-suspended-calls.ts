import type { Kysely, Migration } from "kysely";

export const suspendedCalls: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("suspended_calls")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("arguments", "text", (column) => column.notNull())
      .addColumn("answers", "text", (column) => column.notNull())
      .addColumn("pending", "text", (column) => column.notNull())
      .addColumn("rounds", "integer", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("updated_at", "text", (column) => column.notNull())
      .addColumn("expires_at", "text", (column) => column.notNull())
      .execute();
    await db.schema.createIndex("suspended_calls_expires").on("suspended_calls").column("expires_at").execute();
  },
};

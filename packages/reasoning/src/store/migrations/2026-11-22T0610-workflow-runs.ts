import type { Kysely, Migration } from "kysely";

export const workflowRuns: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("workflow_runs")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("workflow", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("current_step", "text")
      .addColumn("inputs", "text", (column) => column.notNull())
      .addColumn("answers", "text", (column) => column.notNull())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("updated_at", "text", (column) => column.notNull())
      .addColumn("completed_at", "text")
      .execute();
  },
};

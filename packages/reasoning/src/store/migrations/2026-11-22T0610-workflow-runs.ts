import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

export const workflowRuns: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // Each dialect's own boolean, timestamp and JSON types (on SQLite: the integer and text columns shipped).
    const types = columnTypes(db);
    await db.schema
      .createTable("workflow_runs")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("workflow", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("current_step", "text")
      .addColumn("inputs", types.json, (column) => column.notNull())
      .addColumn("answers", types.json, (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addColumn("completed_at", types.timestamp)
      .execute();
  },
};

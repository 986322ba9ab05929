import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// Created under this name by the shared core-tables migration before tables moved to their
// modules; the name is kept so databases migrated then count it as applied.
export const branchCheckpointTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // Each dialect's own boolean, timestamp and JSON types (on SQLite: the integer and text columns shipped).
    const types = columnTypes(db);
    await db.schema
      .createTable("branches")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("parent_branch_id", "text")
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("score", "double precision", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema.createIndex("branches_session").on("branches").columns(["session_id", "position"]).execute();

    await db.schema
      .createTable("checkpoints")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("description", "text")
      .addColumn("thought_count", "integer", (column) => column.notNull())
      .addColumn("snapshot", types.json, (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex("checkpoints_session")
      .on("checkpoints")
      .columns(["session_id", "created_at"])
      .execute();
  },
};

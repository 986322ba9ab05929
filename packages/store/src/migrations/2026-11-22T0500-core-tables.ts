import type { Kysely, Migration } from "kysely";
import { columnTypes } from "../column-types.ts";

// Shipped migrations are never edited; add a new file instead. (Branches and checkpoints moved,
// under this same name, to the reasoning module's migrations when tables went to their modules.)
// Types are portable: text, integer and double precision run on SQLite and Postgres;
// booleans, timestamps and JSON take each dialect's own type (columnTypes), which on
// SQLite are the integer and text columns this migration always created.
export const coreTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema
      .createTable("sessions")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("mode", "text", (column) => column.notNull())
      .addColumn("active_branch_id", "text")
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .execute();

    await db.schema
      .createTable("thoughts")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("branch_id", "text")
      .addColumn("parent_id", "text")
      .addColumn("mode", "text", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("confidence", "double precision")
      .addColumn("status", "text", (column) => column.notNull().defaultTo("active"))
      .addColumn("metadata", types.json, (column) => column.notNull().defaultTo("{}"))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("thoughts_session_position", ["session_id", "position"])
      .execute();

    await db.schema
      .createTable("invocations")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("operation", "text")
      .addColumn("session_id", "text")
      .addColumn("provider", "text")
      .addColumn("model", "text")
      .addColumn("input_tokens", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("output_tokens", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("cache_read_tokens", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("cache_write_tokens", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("model_calls", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("latency_ms", "double precision", (column) => column.notNull())
      .addColumn("success", types.boolean, (column) => column.notNull())
      .addColumn("error_code", "text")
      .addColumn("error_message", "text")
      .addColumn("quality", "double precision")
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema.createIndex("invocations_tool_created").on("invocations").columns(["tool", "created_at"]).execute();
    await db.schema.createIndex("invocations_session").on("invocations").column("session_id").execute();
  },
};

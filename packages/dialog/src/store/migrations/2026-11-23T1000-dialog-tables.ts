import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// The dialog module's tables. Portable SQL only (SQLite and Postgres): text, integer and
// double precision columns, JSON as text, foreign keys to the shared sessions table.
// Shipped migrations are never edited; add a new file instead.
export const dialogTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // Each dialect's own boolean, timestamp and JSON types (on SQLite: the integer and text columns shipped).
    const types = columnTypes(db);
    await db.schema
      .createTable("dialog_sessions")
      .addColumn("session_id", "text", (column) => column.primaryKey().references("sessions.id").onDelete("cascade"))
      .addColumn("thread_id", "text", (column) => column.notNull())
      .addColumn("topic", "text", (column) => column.notNull())
      .addColumn("context", "text")
      .addColumn("mode", "text", (column) => column.notNull())
      .addColumn("plan", types.json, (column) => column.notNull())
      .addColumn("max_iterations", "integer", (column) => column.notNull())
      .addColumn("quality_threshold", "double precision", (column) => column.notNull())
      .addColumn("token_budget", "integer")
      .addColumn("wall_time_budget_seconds", "integer")
      .addColumn("context_budget_tokens", "integer", (column) => column.notNull())
      .addColumn("idle_timeout_seconds", "integer", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("stop_reason", "text")
      .addColumn("completed_iterations", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("current_quality", "double precision")
      .addColumn("tokens_used", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("error", "text")
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema.createIndex("dialog_sessions_updated").on("dialog_sessions").column("updated_at").execute();

    await db.schema
      .createTable("dialog_agents")
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("dialog_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("role", "text", (column) => column.notNull())
      .addColumn("system_prompt", "text", (column) => column.notNull())
      .addColumn("model", "text")
      .addColumn("temperature", "double precision")
      .addColumn("max_tokens", "integer")
      .addPrimaryKeyConstraint("dialog_agents_pk", ["session_id", "position"])
      .addUniqueConstraint("dialog_agents_session_name", ["session_id", "name"])
      .execute();

    await db.schema
      .createTable("dialog_exchanges")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("dialog_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("iteration", "integer", (column) => column.notNull())
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("step", "integer", (column) => column.notNull())
      .addColumn("agent", "text", (column) => column.notNull())
      .addColumn("role", "text", (column) => column.notNull())
      .addColumn("act", "text", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("answer", types.json, (column) => column.notNull())
      .addColumn("input_tokens", "integer", (column) => column.notNull())
      .addColumn("output_tokens", "integer", (column) => column.notNull())
      .addColumn("tokens_estimated", types.boolean, (column) => column.notNull().defaultTo(types.false))
      .addColumn("model", "text")
      .addColumn("state", "text")
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("dialog_exchanges_session_iteration_position", ["session_id", "iteration", "position"])
      .execute();

    await db.schema
      .createTable("dialog_iterations")
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("dialog_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("iteration", "integer", (column) => column.notNull())
      .addColumn("document", "text", (column) => column.notNull())
      .addColumn("reviewer_score", "double precision", (column) => column.notNull())
      .addColumn("self_assessment", "double precision", (column) => column.notNull())
      .addColumn("criteria", types.json, (column) => column.notNull())
      .addColumn("reviews", types.json, (column) => column.notNull())
      .addColumn("directives", types.json, (column) => column.notNull())
      .addColumn("tokens", "integer", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addPrimaryKeyConstraint("dialog_iterations_pk", ["session_id", "iteration"])
      .execute();

    await db.schema
      .createTable("dialog_summaries")
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("dialog_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("through_iteration", "integer", (column) => column.notNull())
      .addColumn("made_in_iteration", "integer", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("input_tokens", "integer", (column) => column.notNull())
      .addColumn("output_tokens", "integer", (column) => column.notNull())
      .addColumn("tokens_estimated", types.boolean, (column) => column.notNull().defaultTo(types.false))
      .addColumn("model", "text")
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addPrimaryKeyConstraint("dialog_summaries_pk", ["session_id", "through_iteration"])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of [
      "dialog_summaries",
      "dialog_iterations",
      "dialog_exchanges",
      "dialog_agents",
      "dialog_sessions",
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};

import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// Shipped migrations are never edited; add a new file instead. Portable types only
// (text, integer, double precision), so the same migration runs on SQLite and Postgres.
export const selfImprovementTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // Each dialect's own timestamp and JSON types (on SQLite: the text columns shipped).
    const types = columnTypes(db);
    await db.schema
      .createTable("self_improvement_diagnoses")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("metric", "text", (column) => column.notNull())
      .addColumn("severity", "text", (column) => column.notNull())
      .addColumn("deviation_pct", "double precision", (column) => column.notNull())
      .addColumn("trigger_json", types.json, (column) => column.notNull())
      .addColumn("description", "text", (column) => column.notNull())
      .addColumn("suspected_cause", "text")
      .addColumn("action_json", types.json, (column) => column.notNull())
      .addColumn("rationale", "text")
      .addColumn("analyzer", "text", (column) => column.notNull())
      .addColumn("rule", "text")
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("status_reason", "text")
      .addColumn("action_id", "text")
      .execute();
    await db.schema
      .createIndex("self_improvement_diagnoses_status")
      .on("self_improvement_diagnoses")
      .columns(["status", "created_at"])
      .execute();
    await db.schema
      .createIndex("self_improvement_diagnoses_created")
      .on("self_improvement_diagnoses")
      .column("created_at")
      .execute();

    await db.schema
      .createTable("self_improvement_actions")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("diagnosis_id", "text", (column) => column.notNull().references("self_improvement_diagnoses.id"))
      .addColumn("scope", "text", (column) => column.notNull())
      .addColumn("setting", "text", (column) => column.notNull())
      .addColumn("direction", "text", (column) => column.notNull())
      .addColumn("from_value", "double precision", (column) => column.notNull())
      .addColumn("to_value", "double precision", (column) => column.notNull())
      .addColumn("previous_override", "double precision")
      .addColumn("previous_action_id", "text")
      .addColumn("tools_json", types.json, (column) => column.notNull())
      .addColumn("metric", "text", (column) => column.notNull())
      .addColumn("before_from", types.timestamp, (column) => column.notNull())
      .addColumn("applied_at", types.timestamp, (column) => column.notNull())
      .addColumn("applied_by", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("status_reason", "text")
      .addColumn("evaluated_at", types.timestamp)
      .addColumn("rolled_back_at", types.timestamp)
      .addColumn("rolled_back_by", "text")
      .addColumn("reward", "double precision")
      .addColumn("confidence", "double precision")
      .addColumn("pre_metrics_json", types.json, (column) => column.notNull())
      .addColumn("post_metrics_json", types.json)
      .execute();
    await db.schema
      .createIndex("self_improvement_actions_status")
      .on("self_improvement_actions")
      .columns(["status", "applied_at"])
      .execute();
    await db.schema
      .createIndex("self_improvement_actions_applied")
      .on("self_improvement_actions")
      .column("applied_at")
      .execute();

    await db.schema
      .createTable("self_improvement_learnings")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("action_id", "text", (column) => column.references("self_improvement_actions.id"))
      .addColumn("diagnosis_id", "text", (column) => column.references("self_improvement_diagnoses.id"))
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("scope", "text", (column) => column.notNull())
      .addColumn("setting", "text", (column) => column.notNull())
      .addColumn("direction", "text", (column) => column.notNull())
      .addColumn("verdict", "text", (column) => column.notNull())
      .addColumn("reward", "double precision")
      .addColumn("confidence", "double precision")
      .addColumn("breakdown_json", types.json, (column) => column.notNull())
      .addColumn("lessons_json", types.json, (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex("self_improvement_learnings_created")
      .on("self_improvement_learnings")
      .column("created_at")
      .execute();

    await db.schema
      .createTable("self_improvement_overrides")
      .addColumn("scope", "text", (column) => column.notNull())
      .addColumn("setting", "text", (column) => column.notNull())
      .addColumn("value", "double precision", (column) => column.notNull())
      .addColumn("action_id", "text", (column) => column.references("self_improvement_actions.id"))
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addPrimaryKeyConstraint("self_improvement_overrides_pk", ["scope", "setting"])
      .execute();

    await db.schema
      .createTable("self_improvement_state")
      .addColumn("key", "text", (column) => column.primaryKey())
      .addColumn("value_json", types.json, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .execute();

    await db.schema
      .createTable("self_improvement_leases")
      .addColumn("name", "text", (column) => column.primaryKey())
      .addColumn("holder", "text", (column) => column.notNull())
      .addColumn("acquired_at", types.timestamp, (column) => column.notNull())
      .addColumn("expires_at", types.timestamp, (column) => column.notNull())
      .execute();

    await db.schema
      .createTable("self_improvement_cycles")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("started_at", types.timestamp, (column) => column.notNull())
      .addColumn("finished_at", types.timestamp, (column) => column.notNull())
      .addColumn("holder", "text", (column) => column.notNull())
      .addColumn("outcome", "text", (column) => column.notNull())
      .addColumn("reason", "text", (column) => column.notNull())
      .addColumn("diagnosis_id", "text")
      .addColumn("action_id", "text")
      .addColumn("details_json", types.json, (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex("self_improvement_cycles_started")
      .on("self_improvement_cycles")
      .column("started_at")
      .execute();

    await db.schema
      .createTable("self_improvement_tool_modes")
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("mode", "text", (column) => column.notNull())
      .addColumn("calls", "integer", (column) => column.notNull())
      .addColumn("first_seen_at", types.timestamp, (column) => column.notNull())
      .addColumn("last_seen_at", types.timestamp, (column) => column.notNull())
      .addPrimaryKeyConstraint("self_improvement_tool_modes_pk", ["tool", "mode"])
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of [
      "self_improvement_tool_modes",
      "self_improvement_cycles",
      "self_improvement_leases",
      "self_improvement_state",
      "self_improvement_overrides",
      "self_improvement_learnings",
      "self_improvement_actions",
      "self_improvement_diagnoses",
    ]) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};

import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// The module's own tables. Portable types only (text, integer, double precision),
// so the same migration runs on SQLite and Postgres. Never edit a shipped migration.
export const knowledgeGraphTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // Each dialect's own boolean, timestamp and JSON types (on SQLite: the integer and text columns shipped).
    const types = columnTypes(db);
    await db.schema
      .createTable("knowledge_graph_sessions")
      .addColumn("session_id", "text", (column) => column.primaryKey().references("sessions.id").onDelete("cascade"))
      .addColumn("first_task_id", "text", (column) => column.notNull())
      .addColumn("goal_query", "text", (column) => column.notNull())
      .addColumn("state", "text", (column) => column.notNull())
      .addColumn("revision", "integer", (column) => column.notNull())
      .addColumn("pending", types.json)
      .addColumn("calls", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addColumn("last_active_at", types.timestamp, (column) => column.notNull())
      .addColumn("closed_at", types.timestamp)
      .execute();
    await db.schema
      .createIndex("knowledge_graph_sessions_state_activity")
      .on("knowledge_graph_sessions")
      .columns(["state", "last_active_at"])
      .execute();

    await db.schema
      .createTable("knowledge_graph_entities")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("knowledge_graph_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("normalized_name", "text", (column) => column.notNull())
      .addColumn("type", "text", (column) => column.notNull())
      .addColumn("observations", types.json, (column) => column.notNull().defaultTo("[]"))
      .addColumn("confidence", "double precision", (column) => column.notNull())
      .addColumn("validity", "text", (column) => column.notNull())
      .addColumn("provenance_kind", "text", (column) => column.notNull())
      .addColumn("provenance_task_id", "text", (column) => column.notNull())
      .addColumn("provenance_step", "text")
      .addColumn("provenance_reference", "text")
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("knowledge_graph_entities_session_name", ["session_id", "normalized_name"])
      .execute();

    await db.schema
      .createTable("knowledge_graph_relations")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("knowledge_graph_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("subject_id", "text", (column) =>
        column.notNull().references("knowledge_graph_entities.id").onDelete("cascade"),
      )
      .addColumn("predicate", "text", (column) => column.notNull())
      .addColumn("object_id", "text", (column) =>
        column.notNull().references("knowledge_graph_entities.id").onDelete("cascade"),
      )
      .addColumn("confidence", "double precision", (column) => column.notNull())
      .addColumn("validity", "text", (column) => column.notNull())
      .addColumn("provenance_kind", "text", (column) => column.notNull())
      .addColumn("provenance_task_id", "text", (column) => column.notNull())
      .addColumn("provenance_step", "text")
      .addColumn("provenance_reference", "text")
      .addColumn("derivation", types.json)
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("knowledge_graph_relations_session_triple", [
        "session_id",
        "subject_id",
        "predicate",
        "object_id",
      ])
      .execute();
    await db.schema
      .createIndex("knowledge_graph_relations_object")
      .on("knowledge_graph_relations")
      .column("object_id")
      .execute();

    // The key session states are signed with, made on first use so every replica sharing the database shares it.
    await db.schema
      .createTable("knowledge_graph_secrets")
      .addColumn("name", "text", (column) => column.primaryKey())
      .addColumn("value", "text", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable("knowledge_graph_secrets").execute();
    await db.schema.dropTable("knowledge_graph_relations").execute();
    await db.schema.dropTable("knowledge_graph_entities").execute();
    await db.schema.dropTable("knowledge_graph_sessions").execute();
  },
};

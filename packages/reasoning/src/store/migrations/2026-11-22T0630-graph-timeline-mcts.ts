import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// Tables for reasoning_graph, reasoning_timeline and reasoning_mcts.
// Shipped migrations are never edited; add a new file instead.
export const graphTimelineMctsTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // Each dialect's own boolean, timestamp and JSON types (on SQLite: the integer and text columns shipped).
    const types = columnTypes(db);
    await db.schema
      .createTable("graphs")
      .addColumn("session_id", "text", (column) => column.primaryKey().references("sessions.id").onDelete("cascade"))
      .addColumn("root_node_id", "text", (column) => column.notNull())
      .addColumn("problem", "text")
      .addColumn("max_nodes", "integer", (column) => column.notNull())
      .addColumn("max_depth", "integer", (column) => column.notNull())
      .addColumn("prune_threshold", "double precision", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .execute();

    await db.schema
      .createTable("graph_nodes")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("parent_id", "text")
      .addColumn("kind", "text", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("depth", "integer", (column) => column.notNull())
      .addColumn("score", "double precision")
      .addColumn("criteria", types.json)
      .addColumn("status", "text", (column) => column.notNull().defaultTo("active"))
      .addColumn("is_terminal", types.boolean, (column) => column.notNull().defaultTo(types.false))
      .addColumn("metadata", types.json, (column) => column.notNull().defaultTo("{}"))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("graph_nodes_session_position", ["session_id", "position"])
      .execute();
    await db.schema
      .createIndex("graph_nodes_session_status")
      .on("graph_nodes")
      .columns(["session_id", "status"])
      .execute();

    await db.schema
      .createTable("graph_edges")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("from_node_id", "text", (column) => column.notNull().references("graph_nodes.id").onDelete("cascade"))
      .addColumn("to_node_id", "text", (column) => column.notNull().references("graph_nodes.id").onDelete("cascade"))
      .addColumn("kind", "text", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("graph_edges_from_to_kind", ["from_node_id", "to_node_id", "kind"])
      .execute();
    await db.schema.createIndex("graph_edges_session").on("graph_edges").column("session_id").execute();
    await db.schema.createIndex("graph_edges_to").on("graph_edges").column("to_node_id").execute();

    await db.schema
      .createTable("timelines")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("current_branch_id", "text", (column) => column.notNull())
      .addColumn("metadata", types.json, (column) => column.notNull().defaultTo("{}"))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema.createIndex("timelines_session").on("timelines").column("session_id").execute();

    await db.schema
      .createTable("timeline_branches")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("timeline_id", "text", (column) => column.notNull().references("timelines.id").onDelete("cascade"))
      .addColumn("parent_branch_id", "text")
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("label", "text", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull().defaultTo("active"))
      .addColumn("merged_into_id", "text")
      .addColumn("metadata", types.json, (column) => column.notNull().defaultTo("{}"))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("timeline_branches_timeline_position", ["timeline_id", "position"])
      .execute();

    await db.schema
      .createTable("timeline_merges")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("timeline_id", "text", (column) => column.notNull().references("timelines.id").onDelete("cascade"))
      .addColumn("source_branch_id", "text", (column) => column.notNull())
      .addColumn("target_branch_id", "text", (column) => column.notNull())
      .addColumn("strategy", "text", (column) => column.notNull())
      .addColumn("target_content_before", "text", (column) => column.notNull())
      .addColumn("merged_content", "text", (column) => column.notNull())
      .addColumn("conflicts", types.json, (column) => column.notNull().defaultTo("[]"))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema
      .createIndex("timeline_merges_timeline")
      .on("timeline_merges")
      .columns(["timeline_id", "created_at"])
      .execute();

    await db.schema
      .createTable("mcts_nodes")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("session_id", "text", (column) => column.notNull().references("sessions.id").onDelete("cascade"))
      .addColumn("root_id", "text", (column) => column.notNull())
      .addColumn("parent_id", "text")
      .addColumn("position", "integer", (column) => column.notNull())
      .addColumn("depth", "integer", (column) => column.notNull())
      .addColumn("content", "text", (column) => column.notNull())
      .addColumn("visits", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("total_value", "double precision", (column) => column.notNull().defaultTo(0))
      .addColumn("evaluation", "double precision")
      .addColumn("is_terminal", types.boolean, (column) => column.notNull().defaultTo(types.false))
      .addColumn("metadata", types.json, (column) => column.notNull().defaultTo("{}"))
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addUniqueConstraint("mcts_nodes_session_position", ["session_id", "position"])
      .execute();
    await db.schema.createIndex("mcts_nodes_root").on("mcts_nodes").columns(["root_id", "position"]).execute();
  },
};

import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// Sessions bound to the caller that created them, and the rules hosts give as data.
export const sessionBindingTables: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema
      .createTable("knowledge_graph_session_owners")
      .addColumn("session_id", "text", (column) =>
        column.primaryKey().references("knowledge_graph_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("owner", "text", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema
      .createTable("knowledge_graph_rules")
      .addColumn("session_id", "text", (column) =>
        column.notNull().references("knowledge_graph_sessions.session_id").onDelete("cascade"),
      )
      .addColumn("name", "text", (column) => column.notNull())
      .addColumn("rule", types.json, (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addPrimaryKeyConstraint("knowledge_graph_rules_session_name", ["session_id", "name"])
      .execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable("knowledge_graph_rules").execute();
    await db.schema.dropTable("knowledge_graph_session_owners").execute();
  },
};

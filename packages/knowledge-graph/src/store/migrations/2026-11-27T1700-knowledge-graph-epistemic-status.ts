import { columnTypes } from "@deliberate/store";
import { type Kysely, type Migration, sql } from "kysely";

/**
 * Facts carry their epistemic status and the facts they conflict with;
 * sessions keep their functional predicates and the rules their graph is
 * closed under (incremental closure). Existing relations get the status their
 * validity implies (a hypothesized relation with a derivation was deduced from
 * a hypothesis). Portable: the same statements on SQLite and Postgres.
 */
export const epistemicStatusMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    // SQLite takes one column per ALTER TABLE.
    await db.schema.alterTable("knowledge_graph_relations").addColumn("status", "text").execute();
    await db.schema
      .alterTable("knowledge_graph_relations")
      .addColumn("conflicts_with", types.json, (column) => column.notNull().defaultTo("[]"))
      .execute();
    await sql`update knowledge_graph_relations set status = case
      when validity = 'asserted' then 'asserted'
      when validity = 'derived' then 'derived'
      when derivation is null then 'hypothetical'
      else 'derived_from_hypothesis' end`.execute(db);
    await db.schema.alterTable("knowledge_graph_sessions").addColumn("functional_predicates", types.json).execute();
    await db.schema.alterTable("knowledge_graph_sessions").addColumn("closure", types.json).execute();
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("knowledge_graph_sessions").dropColumn("closure").execute();
    await db.schema.alterTable("knowledge_graph_sessions").dropColumn("functional_predicates").execute();
    await db.schema.alterTable("knowledge_graph_relations").dropColumn("conflicts_with").execute();
    await db.schema.alterTable("knowledge_graph_relations").dropColumn("status").execute();
  },
};

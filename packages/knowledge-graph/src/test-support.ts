import { openStore, type Store } from "@deliberate/store";
import { createKnowledgeGraphRepository, type KnowledgeGraphRepository } from "./storage/knowledge-graph.repository.ts";
import { knowledgeGraphMigrations } from "./storage/migrations.ts";

/** In-memory SQLite with the base tables and this module's tables, migrated as the engine does. */
export async function openTestStore(): Promise<Store<{ knowledgeGraph: KnowledgeGraphRepository }>> {
  return openStore<{ knowledgeGraph: KnowledgeGraphRepository }>({
    path: ":memory:",
    modules: [{ name: "knowledge-graph", migrations: knowledgeGraphMigrations, repositories: (db) => ({ knowledgeGraph: createKnowledgeGraphRepository(db) }) }],
  });
}

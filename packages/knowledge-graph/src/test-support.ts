import type { DialectName, Store } from "@deliberate/store";
import { openTestStore as openDialectStore } from "@deliberate/store/testing";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import { createHostRulesRepository } from "./store/repositories/host-rules.repository.ts";
import { createKnowledgeGraphRepository } from "./store/repositories/knowledge-graph.repository.ts";
import { createSessionOwnersRepository } from "./store/repositories/session-owners.repository.ts";
import { knowledgeGraphMigrations } from "./store/migrations/index.ts";

/**
 * A fresh store with the base tables and this module's tables, migrated as the
 * engine does: in-memory SQLite, or a fresh schema on the test run's Postgres.
 */
export async function openTestStore(dialect: DialectName = "sqlite"): Promise<Store<KnowledgeGraphRepositories>> {
  return openDialectStore<KnowledgeGraphRepositories>(dialect, {
    modules: [
      {
        name: "knowledge-graph",
        migrations: knowledgeGraphMigrations,
        repositories: (db) => ({
          knowledgeGraph: createKnowledgeGraphRepository(db),
          knowledgeGraphOwners: createSessionOwnersRepository(db),
          knowledgeGraphRules: createHostRulesRepository(db),
        }),
      },
    ],
  });
}

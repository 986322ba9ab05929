import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import { knowledgeGraphMigrations } from "./migrations/index.ts";
import { createHostRulesRepository } from "./repositories/host-rules.repository.ts";
import { createKnowledgeGraphRepository } from "./repositories/knowledge-graph.repository.ts";
import { createSessionOwnersRepository } from "./repositories/session-owners.repository.ts";

/** Binds the knowledge-graph module's repositories to a handle (the database or an open transaction). */
export function createKnowledgeGraphRepositories(db: Kysely<Database>) {
  return {
    knowledgeGraph: createKnowledgeGraphRepository(db),
    knowledgeGraphOwners: createSessionOwnersRepository(db),
    knowledgeGraphRules: createHostRulesRepository(db),
  };
}

/** The knowledge-graph module's part of the store, spread into its module: its migrations and its repositories. */
export const knowledgeGraphStore = {
  migrations: knowledgeGraphMigrations,
  repositories: createKnowledgeGraphRepositories,
};

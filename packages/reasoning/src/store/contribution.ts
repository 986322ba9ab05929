import type { Database, Repositories, StoreContribution } from "@deliberate/store";
import type { Kysely } from "kysely";
import { reasoningMigrations } from "./migrations/index.ts";
import type { ReasoningTables } from "./tables.ts";
import { createBranchRepository } from "./repositories/branch.repository.ts";
import { createCheckpointRepository } from "./repositories/checkpoint.repository.ts";
import { createGraphRepository } from "./repositories/graph.repository.ts";
import { createMctsRepository } from "./repositories/mcts.repository.ts";
import { createTimelineRepository } from "./repositories/timeline.repository.ts";
import { createWorkflowRunRepository } from "./repositories/workflow-run.repository.ts";

/** Binds the reasoning module's repositories to a handle (the database or an open transaction). */
export function createReasoningRepositories(db: Kysely<Database>) {
  const executor = db.withTables<ReasoningTables>();
  return {
    branches: createBranchRepository(executor),
    checkpoints: createCheckpointRepository(executor),
    graphs: createGraphRepository(executor),
    timelines: createTimelineRepository(executor),
    mcts: createMctsRepository(executor),
    workflowRuns: createWorkflowRunRepository(executor),
  };
}

/** The repositories reasoning tools see in `context.store`, beside the shared ones. */
export type ReasoningRepositories = ReturnType<typeof createReasoningRepositories>;

/** The shared and the reasoning repositories, bound to one handle (what a transaction's `work` receives). */
export type ReasoningStoreRepositories = Repositories<ReasoningRepositories>;

/** The reasoning module's part of the store, spread into its module: its migrations and its repositories. */
export const reasoningStore = {
  migrations: reasoningMigrations,
  repositories: createReasoningRepositories,
} satisfies Omit<StoreContribution<ReasoningRepositories>, "name">;

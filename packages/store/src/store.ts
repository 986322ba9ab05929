import type { Kysely } from "kysely";
import type { Database } from "./database.ts";
import { openSqliteDatabase } from "./open-database.ts";
import { createBranchRepository } from "./repositories/branch.repository.ts";
import { createCheckpointRepository } from "./repositories/checkpoint.repository.ts";
import { createGraphRepository } from "./repositories/graph.repository.ts";
import { createMctsRepository } from "./repositories/mcts.repository.ts";
import { createTimelineRepository } from "./repositories/timeline.repository.ts";
import { createInvocationRepository } from "./repositories/invocation.repository.ts";
import { createJobRepository } from "./repositories/job.repository.ts";
import { createReasoningLogRepository } from "./repositories/reasoning-log.repository.ts";
import { createSessionRepository } from "./repositories/session.repository.ts";
import { createSuspendedCallRepository } from "./repositories/suspended-call.repository.ts";
import { createWorkflowRunRepository } from "./repositories/workflow-run.repository.ts";
import { createThoughtRepository } from "./repositories/thought.repository.ts";

/** Repositories bound to one database handle or transaction. */
export interface Repositories {
  readonly db: Kysely<Database>;
  readonly sessions: ReturnType<typeof createSessionRepository>;
  readonly thoughts: ReturnType<typeof createThoughtRepository>;
  readonly branches: ReturnType<typeof createBranchRepository>;
  readonly checkpoints: ReturnType<typeof createCheckpointRepository>;
  readonly invocations: ReturnType<typeof createInvocationRepository>;
  readonly graphs: ReturnType<typeof createGraphRepository>;
  readonly timelines: ReturnType<typeof createTimelineRepository>;
  readonly mcts: ReturnType<typeof createMctsRepository>;
  readonly suspendedCalls: ReturnType<typeof createSuspendedCallRepository>;
  readonly workflowRuns: ReturnType<typeof createWorkflowRunRepository>;
  readonly jobs: ReturnType<typeof createJobRepository>;
  readonly reasoningLogs: ReturnType<typeof createReasoningLogRepository>;
}

/** The store handed to the engine: repositories, transactions, close. */
export interface Store extends Repositories {
  /**
   * Runs `work` in one transaction; everything it writes lands or nothing does.
   * Never hold a transaction across a model call.
   */
  transaction<T>(work: (repositories: Repositories) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

function bindRepositories(db: Kysely<Database>): Repositories {
  return {
    db,
    sessions: createSessionRepository(db),
    thoughts: createThoughtRepository(db),
    branches: createBranchRepository(db),
    checkpoints: createCheckpointRepository(db),
    invocations: createInvocationRepository(db),
    graphs: createGraphRepository(db),
    timelines: createTimelineRepository(db),
    mcts: createMctsRepository(db),
    suspendedCalls: createSuspendedCallRepository(db),
    workflowRuns: createWorkflowRunRepository(db),
    jobs: createJobRepository(db),
    reasoningLogs: createReasoningLogRepository(db),
  };
}

/** Wraps an open, migrated database as a Store. */
export function createStore(db: Kysely<Database>): Store {
  return {
    ...bindRepositories(db),
    transaction: (work) => db.transaction().execute((transaction) => work(bindRepositories(transaction))),
    close: () => db.destroy(),
  };
}

/** Opens (and migrates) SQLite at `path` (":memory:" for tests) and returns the store. */
export async function openStore(options: { path: string }): Promise<Store> {
  return createStore(await openSqliteDatabase(options));
}

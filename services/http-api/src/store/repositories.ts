import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import { createJobRepository } from "./repositories/job.repository.ts";
import { createReasoningLogRepository } from "./repositories/reasoning-log.repository.ts";
import type { JobTable } from "./tables/job.table.ts";
import type { ReasoningLogTable } from "./tables/reasoning-log.table.ts";

/** The HTTP API's own tables: the durable intent queue and its request log. */
export type ApiTables = {
  reasoning_queue: JobTable;
  reasoning_logs: ReasoningLogTable;
};

/** A handle (database or open transaction) that sees the shared and the API's tables. */
export type DatabaseExecutor = Kysely<Database & ApiTables>;

/** Binds the API's repositories to a handle. */
export function createApiRepositories(db: Kysely<Database>) {
  const executor = db.withTables<ApiTables>();
  return { jobs: createJobRepository(executor), reasoningLogs: createReasoningLogRepository(executor) };
}

export type ApiRepositories = ReturnType<typeof createApiRepositories>;

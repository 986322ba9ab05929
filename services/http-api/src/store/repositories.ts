import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import { createJobRepository } from "./repositories/job.repository.ts";
import { createRateLimitRepository } from "./repositories/rate-limit.repository.ts";
import { createReasoningLogRepository } from "./repositories/reasoning-log.repository.ts";
import type { ApiTables } from "./executor.ts";

/** Binds the API's repositories to a handle. */
export function createApiRepositories(db: Kysely<Database>) {
  const executor = db.withTables<ApiTables>();
  return { jobs: createJobRepository(executor), reasoningLogs: createReasoningLogRepository(executor), rateLimits: createRateLimitRepository(executor) };
}

export type ApiRepositories = ReturnType<typeof createApiRepositories>;

export type { ApiTables, DatabaseExecutor } from "./executor.ts";

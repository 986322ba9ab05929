import type { Database, StoreContribution } from "@deliberate/store";
import type { Kysely } from "kysely";
import { createJobRepository } from "./repositories/job.repository.ts";
import { createRateLimitRepository } from "./repositories/rate-limit.repository.ts";
import { createReasoningLogRepository } from "./repositories/reasoning-log.repository.ts";
import { apiMigrations } from "./migrations/index.ts";
import type { ApiTables } from "./tables.ts";

/** Binds the API's repositories to a handle. */
export function createApiRepositories(db: Kysely<Database>) {
  const executor = db.withTables<ApiTables>();
  return {
    jobs: createJobRepository(executor),
    reasoningLogs: createReasoningLogRepository(executor),
    rateLimits: createRateLimitRepository(executor),
  };
}

export type ApiRepositories = ReturnType<typeof createApiRepositories>;

/** The HTTP API's part of the store, spread into its module: its migrations and its repositories. */
export const apiStore = { migrations: apiMigrations, repositories: createApiRepositories } satisfies Omit<
  StoreContribution<ApiRepositories>,
  "name"
>;

import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { JobTable } from "./tables/job.table.ts";
import type { RateLimitTable } from "./tables/rate-limit.table.ts";
import type { ReasoningLogTable } from "./tables/reasoning-log.table.ts";

/** The HTTP API's own tables: the durable intent queue, its request log, and the shared rate-limit counters. */
export type ApiTables = {
  reasoning_queue: JobTable;
  reasoning_logs: ReasoningLogTable;
  rate_limits: RateLimitTable;
};

/** A handle (database or open transaction) that sees the shared and the API's tables. */
export type DatabaseExecutor = Kysely<Database & ApiTables>;

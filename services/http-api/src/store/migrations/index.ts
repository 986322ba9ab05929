import type { Migration } from "kysely";
import { reasoningQueue } from "./2026-11-22T0700-reasoning-queue.ts";
import { rateLimits } from "./2026-11-24T1210-rate-limits.ts";
import { jobIdempotency } from "./2026-11-27T1710-job-idempotency.ts";

/**
 * The HTTP API's migrations, by timestamped name (applied per owner `agent-intent`). The queue's tables were
 * created by the shared migrations before tables had owners: the name is kept.
 */
export const apiMigrations: Readonly<Record<string, Migration>> = {
  "2026-11-22T0700-reasoning-queue": reasoningQueue,
  "2026-11-24T1210-rate-limits": rateLimits,
  "2026-11-27T1710-job-idempotency": jobIdempotency,
};

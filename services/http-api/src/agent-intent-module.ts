import { defineModule } from "@deliberate/engine";
import { decideHandler } from "./intent/decide-tool.ts";
import { reasoningQueue } from "./store/migrations/2026-11-22T0700-reasoning-queue.ts";
import { rateLimits } from "./store/migrations/2026-11-24T1210-rate-limits.ts";
import { jobIdempotency } from "./store/migrations/2026-11-27T1710-job-idempotency.ts";
import { type ApiRepositories, createApiRepositories } from "./store/repositories.ts";

/**
 * The HTTP API's own module: the agent-intent decision as a tool, and the
 * tables of the durable intent queue, its request log and the shared rate-limit counters.
 */
export const agentIntentModule = defineModule<ApiRepositories>({
  name: "agent-intent",
  tools: [decideHandler],
  // The queue's tables were created by the shared migrations before tables had owners: the name is kept.
  migrations: { "2026-11-22T0700-reasoning-queue": reasoningQueue, "2026-11-24T1210-rate-limits": rateLimits, "2026-11-27T1710-job-idempotency": jobIdempotency },
  repositories: createApiRepositories,
});

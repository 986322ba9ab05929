import type { Clock, IdGenerator } from "@deliberate/engine";
import type { Store } from "@deliberate/store";
import type { ApiConfig } from "../config.ts";
import type { IntentDecider } from "../intent/decide-intent.ts";
import type { Logger, SecretRegistry } from "../logger.ts";
import type { ApiRepositories } from "../store/contribution.ts";
import type { Telemetry } from "../telemetry.ts";
import { createAgentIntentJobs, type AgentIntentJobs } from "./agent-intent-jobs.ts";
import { createCallbackGuard, type HostLookup } from "./callback-guard.ts";
import { createWorkerPool, type WorkerPool } from "./worker-pool.ts";

/** What the service's asynchronous agent-intent queue is built from. */
export interface ServiceQueueOptions {
  readonly config: ApiConfig;
  readonly store: Store<ApiRepositories>;
  readonly decider: IntentDecider;
  /** Identity of this process in the queue (leases name it). */
  readonly owner: string;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly secrets: SecretRegistry;
  readonly telemetry: Telemetry;
  readonly logger: Logger;
  /** DNS lookup for the callback guard (tests). */
  readonly lookup?: HostLookup | undefined;
}

/** The agent-intent jobs and, when `config.queue.enabled`, the worker pool that runs them (not started yet). */
export interface ServiceQueue {
  readonly jobs: AgentIntentJobs;
  readonly pool: WorkerPool | undefined;
}

/**
 * The agent-intent queue: jobs (enqueue, run, deliver the callback through the guard) and the worker pool. Without
 * `config.queue.enabled` there is no pool: jobs are enqueued for another process's workers.
 */
export function createServiceQueue(options: ServiceQueueOptions): ServiceQueue {
  const { config, store, owner, clock, logger, telemetry } = options;
  const guard = createCallbackGuard({
    allowlist: config.callbacks.allowlist,
    ...(options.lookup ? { lookup: options.lookup } : {}),
  });
  // The pool is created after the jobs it runs; an enqueue wakes it once it exists.
  let pool: WorkerPool | undefined;
  const jobs = createAgentIntentJobs({
    store,
    decider: options.decider,
    guard,
    callbacks: config.callbacks,
    owner,
    leaseMs: config.queue.leaseMs,
    maxAttempts: config.queue.maxAttempts,
    jobTimeoutMs: config.http.requestTimeoutMs,
    clock,
    ids: options.ids,
    secrets: options.secrets,
    telemetry,
    logger,
    onEnqueued: () => pool?.wake(),
  });
  if (config.queue.enabled) {
    pool = createWorkerPool({
      jobs: store.jobs,
      owner,
      workers: config.queue.workers,
      pollMs: config.queue.pollMs,
      leaseMs: config.queue.leaseMs,
      clock,
      logger,
      telemetry,
      recoveryMessages: jobs.recoveryMessages,
      run: (job, signal) => jobs.run(job, signal),
      deliver: (job, signal, drain) => jobs.deliver(job, signal, drain),
      onJobEnded: (jobId) => jobs.forget(jobId),
      statusMs: config.queue.statusMs,
      statusPollMs: config.queue.statusPollMs,
    });
  }
  return { jobs, pool };
}

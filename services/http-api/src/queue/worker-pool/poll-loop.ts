import { isTransientDatabaseFault } from "@deliberate/base";
import { startDelivery, startJob } from "./job-run.ts";
import { maintain, pause, resume } from "./lease-keeping.ts";
import { isoAt, type PoolState, sleep } from "./pool-state.ts";

/**
 * The pool's one loop, until stop(): keeps leases and recovery up to date, then fills free job slots with
 * the repository's conditional UPDATE (so processes sharing the database never run the same job) and free
 * delivery slots with callbacks left undelivered.
 */
export async function pollLoop(state: PoolState): Promise<void> {
  const { options } = state;
  while (!state.stopping) {
    try {
      await maintain(state);
      resume(state);
      await claimJobs(state);
      await claimCallbacks(state);
    } catch (error) {
      if (isTransientDatabaseFault(error)) {
        // Paused, not broken: poll again with backoff (up to a second) until the database answers.
        pause(state, error);
        await sleep(state, Math.min(1000, options.pollMs * 2 ** Math.min(state.failedPolls, 10)));
        continue;
      }
      options.logger.error("queue poll failed", { error });
      await sleep(state, Math.min(5000, options.pollMs * 20));
    }
    if (!state.stopping) await sleep(state, options.pollMs);
  }
}

async function claimJobs(state: PoolState): Promise<void> {
  const { options } = state;
  while (!state.stopping && state.running.size < options.workers) {
    const job = await options.jobs.claimNext({
      owner: options.owner,
      now: isoAt(state),
      leaseUntil: isoAt(state, options.leaseMs),
    });
    if (!job) return;
    options.telemetry.record({
      event: "job.claimed",
      job_id: job.id,
      correlation_id: job.correlation_id ?? undefined,
      data: { attempt: job.attempts },
    });
    startJob(state, job);
  }
}

async function claimCallbacks(state: PoolState): Promise<void> {
  const { options } = state;
  while (!state.stopping && state.deliveries.size < options.workers) {
    const job = await options.jobs.claimCallback({
      owner: options.owner,
      now: isoAt(state),
      leaseUntil: isoAt(state, options.leaseMs),
    });
    if (!job) return;
    startDelivery(state, job);
  }
}

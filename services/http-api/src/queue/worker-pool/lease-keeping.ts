import { isTransientDatabaseFault } from "@deliberate/base";
import { type AbortKind, isoAt, type PoolState } from "./pool-state.ts";

/** The heartbeat: renews the leases of what this process works on (also while it drains). */
export async function renewWhenDue(state: PoolState): Promise<void> {
  const { options, running, deliveries } = state;
  const now = performance.now();
  if (now - state.lastRenewal < options.leaseMs / 3) return;
  state.lastRenewal = now;
  const ids = [...running.keys()];
  const held = new Set(
    await options.jobs.renewLeases({
      owner: options.owner,
      now: isoAt(state),
      leaseUntil: isoAt(state, options.leaseMs),
      processing: ids,
      delivering: [...deliveries.keys()],
    }),
  );
  for (const id of ids) {
    // Canceled elsewhere (another replica) or taken over after a stall: stop working on it.
    if (!held.has(id)) running.get(id)?.controller.abort({ kind: "revoked" satisfies AbortKind });
  }
}

/**
 * Renews what this process holds and takes back jobs whose process died (lease expired). The first poll
 * after an outage does both at once (pause() reset both clocks).
 */
export async function maintain(state: PoolState): Promise<void> {
  const { options } = state;
  const now = performance.now();
  await renewWhenDue(state);
  if (now - state.lastRecovery < Math.max(options.pollMs, options.leaseMs / 2)) return;
  state.lastRecovery = now;
  const recovered = await options.jobs.recoverExpired({ now: isoAt(state), messages: options.recoveryMessages });
  for (const id of recovered.requeued)
    options.telemetry.record({ event: "job.requeued", level: "warn", job_id: id, data: { reason: "lease expired" } });
  for (const id of recovered.failed) {
    options.telemetry.record({ event: "job.failed", level: "warn", job_id: id, data: { reason: "lease expired" } });
    options.onJobEnded?.(id);
  }
}

/** Marks the queue paused after a poll failed because the database is away (logged once per outage). */
export function pause(state: PoolState, error: unknown): void {
  state.failedPolls += 1;
  if (state.pausedSince !== undefined) return;
  state.pausedSince = performance.now();
  state.lastRenewal = Number.NEGATIVE_INFINITY;
  state.lastRecovery = Number.NEGATIVE_INFINITY;
  state.options.logger.warn("database unavailable: the queue is paused until it answers again", {
    error,
    running_here: state.running.size,
    delivering_here: state.deliveries.size,
  });
}

/** Ends a pause once a poll passes again. */
export function resume(state: PoolState): void {
  state.failedPolls = 0;
  if (state.pausedSince === undefined) return;
  // Warn, like the pause: the two lines bracket the incident in a log filtered to warnings.
  state.options.logger.warn("database answers again: the queue resumed", {
    paused_ms: Math.round(performance.now() - state.pausedSince),
  });
  state.pausedSince = undefined;
}

/**
 * Runs a queue write that must not be lost (a job's outcome, its release, a delivery's record): while the
 * database is unavailable it is tried again (backing off to a second) until it passes, or until shutdown's
 * grace is over. The lease of what it concerns is still renewed meanwhile (the job stays in `running`).
 */
export async function persist<T>(state: PoolState, what: string, jobId: string, work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isTransientDatabaseFault(error) || state.givingUp.signal.aborted) throw error;
      if (attempt === 1)
        state.options.logger.warn(`database unavailable: ${what} waits for it`, { job_id: jobId, error });
      await delay(Math.min(1000, state.options.pollMs * 2 ** Math.min(attempt, 10)), state.givingUp.signal);
    }
  }
}

/** Waits `milliseconds`, or less if `signal` aborts. */
function delay(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

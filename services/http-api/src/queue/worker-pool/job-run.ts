import type { Job } from "../../store/repositories/job.repository.ts";
import { persist } from "./lease-keeping.ts";
import { type AbortKind, isoAt, type JobOutcome, type PoolState, wake } from "./pool-state.ts";

/** Starts delivering a finished job's callback; it is tracked in `deliveries` until it ends. */
export function startDelivery(state: PoolState, job: Job): void {
  const controller = new AbortController();
  const done = state.options
    .deliver(job, controller.signal, state.draining.signal)
    .catch((error: unknown) => state.options.logger.error("callback delivery crashed", { job_id: job.id, error }))
    .finally(() => state.deliveries.delete(job.id));
  state.deliveries.set(job.id, { controller, done });
}

/** Starts running a claimed job; it is tracked in `running` until its outcome is recorded. */
export function startJob(state: PoolState, job: Job): void {
  const controller = new AbortController();
  const started = performance.now();
  const work = async () =>
    settleJob(state, job, controller.signal, started, await runGuarded(state, job, controller.signal));
  const done = work()
    .catch((error: unknown) => state.options.logger.error("job bookkeeping failed", { job_id: job.id, error }))
    .finally(() => {
      state.running.delete(job.id);
      wake(state);
    });
  state.running.set(job.id, { job, controller, done });
}

/** Leaves a finished job's callback pending and unleased, for whichever process runs next. */
export async function handBack(state: PoolState, job: Job): Promise<void> {
  await state.options.jobs.recordCallback({
    id: job.id,
    owner: state.options.owner,
    now: isoAt(state),
    status: "pending",
    attempts: job.callback_attempts,
    error: "handed back at shutdown",
    releaseLease: true,
  });
}

/** The runner's outcome; a throw becomes an INTERNAL failure (the runner should not throw). */
async function runGuarded(state: PoolState, job: Job, signal: AbortSignal): Promise<JobOutcome> {
  try {
    return await state.options.run(job, signal);
  } catch (error) {
    state.options.logger.error("job runner crashed", { job_id: job.id, error });
    return { status: "failed", error: { code: "INTERNAL", message: "The job failed unexpectedly.", retryable: false } };
  }
}

/** Records how a run ended: released back to the queue, aborted, or finished (then its callback starts). */
async function settleJob(
  state: PoolState,
  job: Job,
  signal: AbortSignal,
  started: number,
  outcome: JobOutcome,
): Promise<void> {
  const { options } = state;
  const reason = (signal.reason as { kind?: AbortKind } | undefined)?.kind;
  const release = () =>
    persist(state, "a job's release", job.id, () =>
      options.jobs.release({ id: job.id, owner: options.owner, now: isoAt(state) }),
    );
  if (signal.aborted && reason === "shutdown") {
    await release();
    options.telemetry.record({
      event: "job.released",
      job_id: job.id,
      correlation_id: job.correlation_id ?? undefined,
      data: { reason: "shutdown" },
    });
    return;
  }
  if (
    outcome.status === "failed" &&
    outcome.error["code"] === "STORAGE" &&
    outcome.error["retryable"] === true &&
    !signal.aborted
  ) {
    // The job failed only because the database went away: it goes back to the queue (the attempt is not
    // counted) once the database answers, and runs again, rather than ending as a failure.
    if (await release()) {
      options.telemetry.record({
        event: "job.released",
        level: "warn",
        job_id: job.id,
        correlation_id: job.correlation_id ?? undefined,
        data: { reason: "database unavailable" },
      });
    }
    options.onJobEnded?.(job.id);
    return;
  }
  if (signal.aborted && (reason === "canceled" || reason === "revoked")) {
    options.telemetry.record({
      event: "job.aborted",
      job_id: job.id,
      correlation_id: job.correlation_id ?? undefined,
      duration_ms: Math.round(performance.now() - started),
      data: { reason, was_running: true },
    });
    options.onJobEnded?.(job.id);
    return;
  }
  await recordOutcome(state, job, started, outcome);
}

/** Writes a finished job's outcome and, when it has a callback URL, starts (or hands back) its delivery. */
async function recordOutcome(state: PoolState, job: Job, started: number, outcome: JobOutcome): Promise<void> {
  const { options } = state;
  const finished = await persist(state, "a job's outcome", job.id, () =>
    options.jobs.finish({
      id: job.id,
      owner: options.owner,
      now: isoAt(state),
      leaseUntil: isoAt(state, options.leaseMs),
      outcome,
    }),
  );
  options.onJobEnded?.(job.id);
  if (!finished) {
    options.telemetry.record({
      event: "job.discarded",
      level: "warn",
      job_id: job.id,
      data: { reason: "canceled or taken over before it finished" },
    });
    return;
  }
  options.telemetry.record({
    event: outcome.status === "done" ? "job.completed" : "job.failed",
    level: outcome.status === "done" ? "info" : "warn",
    job_id: job.id,
    correlation_id: job.correlation_id ?? undefined,
    session_id: job.session_id ?? undefined,
    duration_ms: Math.round(performance.now() - started),
    data: { attempts: job.attempts, ...(outcome.status === "failed" ? { code: outcome.error["code"] } : {}) },
  });
  if (job.callback_url === null) return;
  const latest = await persist(state, "a job's callback", job.id, () => options.jobs.find(job.id));
  // Within the drain a finished job still delivers its callback; past the grace it is handed back (unleased).
  if (latest && !state.aborting) startDelivery(state, latest);
  else if (latest) await persist(state, "a callback's hand-back", job.id, () => handBack(state, latest));
}

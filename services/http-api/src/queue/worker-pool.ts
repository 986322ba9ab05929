import { isTransientDatabaseFault } from "@deliberate/base";
import type { Clock } from "@deliberate/engine";
import type { ApiRepositories } from "../store/contribution.ts";
import type { Job, JobStatus, RecoveryMessages } from "../store/repositories/job.repository.ts";
import type { Logger } from "../logger.ts";
import type { Telemetry } from "../telemetry.ts";

/** What processing a job produced. */
export type JobOutcome = { status: "done"; result: Record<string, unknown> } | { status: "failed"; error: Record<string, unknown> };

/** Why a running job's signal was aborted. */
export type AbortKind = "canceled" | "revoked" | "shutdown";

export interface WorkerPoolOptions {
  jobs: ApiRepositories["jobs"];
  /** This process's identity in the queue (lease owner). */
  owner: string;
  workers: number;
  pollMs: number;
  leaseMs: number;
  clock: Clock;
  logger: Logger;
  telemetry: Telemetry;
  recoveryMessages: RecoveryMessages;
  /** Processes one job; should not throw (a throw is recorded as an INTERNAL failure). */
  run(job: Job, signal: AbortSignal): Promise<JobOutcome>;
  /**
   * Delivers a finished job's callback (retries included) and records the outcome. `signal` aborts the
   * POST in flight; `drain` (shutdown began) cuts a wait between attempts short and hands the callback
   * back, while an attempt (a first one, or one in flight) is still made and left to finish.
   */
  deliver(job: Job, signal: AbortSignal, drain: AbortSignal): Promise<void>;
  /** Called after a job ends in any way (to drop what was kept for it in memory). */
  onJobEnded?(jobId: string): void;
  /** Status line: logged when the counts change, and at least every `statusMs`. */
  statusMs: number;
  statusPollMs: number;
}

/** In-process workers polling the durable queue. */
export interface WorkerPool {
  start(): void;
  /** Look for work now (after an enqueue, instead of waiting for the next poll). */
  wake(): void;
  /** Aborts the model work of jobs just canceled, if this process runs them. */
  abortCanceled(jobIds: readonly string[]): void;
  /**
   * Drains: stops claiming, lets running jobs and callbacks in flight finish within `graceMs` (a job that
   * finishes delivers its callback in it; a callback waiting out a retry delay is handed back at once), then
   * aborts what is left: running jobs go back to the queue, undelivered callbacks stay pending, unleased.
   */
  stop(options: { graceMs: number }): Promise<void>;
  readonly runningJobs: number;
  /** True while the database is unavailable: claiming is paused (it resumes by itself). */
  readonly paused: boolean;
}

interface Running {
  job: Job;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * A pool of `workers` job slots in this process. One loop claims queued jobs
 * with the repository's conditional UPDATE (so processes sharing the database
 * never run the same job), renews the leases it holds, takes back jobs whose
 * process died (lease expired), and picks up callbacks left undelivered.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const running = new Map<string, Running>();
  const deliveries = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let stopping = false;
  /** Aborted when the drain starts: deliveries stop between attempts. */
  const draining = new AbortController();
  /** Set once the grace is over: nothing new starts, what runs is aborted. */
  let aborting = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let lastRenewal = 0;
  let lastRecovery = 0;
  let statusTimer: NodeJS.Timeout | undefined;
  // Set while the database is away: the loop backs off and claims nothing until a poll passes again.
  let pausedSince: number | undefined;
  let failedPolls = 0;
  // Aborted when shutdown's grace is over: bookkeeping stops waiting for the database then.
  const givingUp = new AbortController();

  const iso = (offsetMs = 0) => new Date(options.clock.now().getTime() + offsetMs).toISOString();

  function wake(): void {
    wakeUp?.();
  }

  function sleep(milliseconds: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, milliseconds);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  }

  /** The heartbeat: renews the leases of what this process works on (also while it drains). */
  async function renewWhenDue(): Promise<void> {
    const now = performance.now();
    if (now - lastRenewal < options.leaseMs / 3) return;
    lastRenewal = now;
    const ids = [...running.keys()];
    const held = new Set(
      await options.jobs.renewLeases({ owner: options.owner, now: iso(), leaseUntil: iso(options.leaseMs), processing: ids, delivering: [...deliveries.keys()] }),
    );
    for (const id of ids) {
      // Canceled elsewhere (another replica) or taken over after a stall: stop working on it.
      if (!held.has(id)) running.get(id)?.controller.abort({ kind: "revoked" satisfies AbortKind });
    }
  }

  function pause(error: unknown): void {
    failedPolls += 1;
    if (pausedSince !== undefined) return;
    pausedSince = performance.now();
    lastRenewal = Number.NEGATIVE_INFINITY;
    lastRecovery = Number.NEGATIVE_INFINITY;
    options.logger.warn("database unavailable: the queue is paused until it answers again", { error, running_here: running.size, delivering_here: deliveries.size });
  }

  function resume(): void {
    failedPolls = 0;
    if (pausedSince === undefined) return;
    // Warn, like the pause: the two lines bracket the incident in a log filtered to warnings.
    options.logger.warn("database answers again: the queue resumed", { paused_ms: Math.round(performance.now() - pausedSince) });
    pausedSince = undefined;
  }

  /**
   * Runs a queue write that must not be lost (a job's outcome, its release, a delivery's record): while the
   * database is unavailable it is tried again (backing off to a second) until it passes, or until shutdown's
   * grace is over. The lease of what it concerns is still renewed meanwhile (the job stays in `running`).
   */
  async function persist<T>(what: string, jobId: string, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await work();
      } catch (error) {
        if (!isTransientDatabaseFault(error) || givingUp.signal.aborted) throw error;
        if (attempt === 1) options.logger.warn(`database unavailable: ${what} waits for it`, { job_id: jobId, error });
        await delay(Math.min(1000, options.pollMs * 2 ** Math.min(attempt, 10)), givingUp.signal);
      }
    }
  }

  // The first poll after an outage renews what this process holds and takes back what lapsed (pause() reset both clocks).
  async function maintain(): Promise<void> {
    const now = performance.now();
    await renewWhenDue();
    if (now - lastRecovery >= Math.max(options.pollMs, options.leaseMs / 2)) {
      lastRecovery = now;
      const recovered = await options.jobs.recoverExpired({ now: iso(), messages: options.recoveryMessages });
      for (const id of recovered.requeued) options.telemetry.record({ event: "job.requeued", level: "warn", job_id: id, data: { reason: "lease expired" } });
      for (const id of recovered.failed) {
        options.telemetry.record({ event: "job.failed", level: "warn", job_id: id, data: { reason: "lease expired" } });
        options.onJobEnded?.(id);
      }
    }
  }

  function startDelivery(job: Job): void {
    const controller = new AbortController();
    const done = options
      .deliver(job, controller.signal, draining.signal)
      .catch((error: unknown) => options.logger.error("callback delivery crashed", { job_id: job.id, error }))
      .finally(() => deliveries.delete(job.id));
    deliveries.set(job.id, { controller, done });
  }

  function startJob(job: Job): void {
    const controller = new AbortController();
    const started = performance.now();
    const work = async () => {
      let outcome: JobOutcome;
      try {
        outcome = await options.run(job, controller.signal);
      } catch (error) {
        options.logger.error("job runner crashed", { job_id: job.id, error });
        outcome = { status: "failed", error: { code: "INTERNAL", message: "The job failed unexpectedly.", retryable: false } };
      }
      const reason = (controller.signal.reason as { kind?: AbortKind } | undefined)?.kind;
      if (controller.signal.aborted && reason === "shutdown") {
        await persist("a job's release", job.id, () => options.jobs.release({ id: job.id, owner: options.owner, now: iso() }));
        options.telemetry.record({ event: "job.released", job_id: job.id, correlation_id: job.correlation_id ?? undefined, data: { reason: "shutdown" } });
        return;
      }
      if (outcome.status === "failed" && outcome.error["code"] === "STORAGE" && outcome.error["retryable"] === true && !controller.signal.aborted) {
        // The job failed only because the database went away: it goes back to the queue (the attempt is not
        // counted) once the database answers, and runs again, rather than ending as a failure.
        const released = await persist("a job's release", job.id, () => options.jobs.release({ id: job.id, owner: options.owner, now: iso() }));
        if (released) options.telemetry.record({ event: "job.released", level: "warn", job_id: job.id, correlation_id: job.correlation_id ?? undefined, data: { reason: "database unavailable" } });
        options.onJobEnded?.(job.id);
        return;
      }
      if (controller.signal.aborted && (reason === "canceled" || reason === "revoked")) {
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
      const finished = await persist("a job's outcome", job.id, () => options.jobs.finish({ id: job.id, owner: options.owner, now: iso(), leaseUntil: iso(options.leaseMs), outcome }));
      options.onJobEnded?.(job.id);
      if (!finished) {
        options.telemetry.record({ event: "job.discarded", level: "warn", job_id: job.id, data: { reason: "canceled or taken over before it finished" } });
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
      if (job.callback_url !== null) {
        const latest = await persist("a job's callback", job.id, () => options.jobs.find(job.id));
        // Within the drain a finished job still delivers its callback; past the grace it is handed back (unleased).
        if (latest && !aborting) startDelivery(latest);
        else if (latest) await persist("a callback's hand-back", job.id, () => handBack(latest));
      }
    };
    const done = work()
      .catch((error: unknown) => options.logger.error("job bookkeeping failed", { job_id: job.id, error }))
      .finally(() => {
        running.delete(job.id);
        wake();
      });
    running.set(job.id, { job, controller, done });
  }

  /** Leaves a finished job's callback pending and unleased, for whichever process runs next. */
  async function handBack(job: Job): Promise<void> {
    await options.jobs.recordCallback({ id: job.id, owner: options.owner, now: iso(), status: "pending", attempts: job.callback_attempts, error: "handed back at shutdown", releaseLease: true });
  }

  /** Waits until no job runs and no callback is being delivered, or `graceMs` passes; true when idle. */
  async function idleWithin(graceMs: number): Promise<boolean> {
    const deadline = performance.now() + graceMs;
    while (running.size + deliveries.size > 0) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      // A grace longer than a lease must not let another process take over what is draining here.
      await renewWhenDue().catch((error: unknown) => options.logger.warn("lease renewal failed while draining", { error }));
      let timer: NodeJS.Timeout | undefined;
      // Deliveries start as jobs finish: look again after whatever ends first (or the next heartbeat).
      const ends = [...running.values(), ...deliveries.values()].map((entry) => entry.done);
      await Promise.race([Promise.race(ends), new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(left, options.leaseMs / 3))))]);
      clearTimeout(timer);
    }
    return true;
  }

  async function run(): Promise<void> {
    while (!stopping) {
      try {
        await maintain();
        resume();
        while (!stopping && running.size < options.workers) {
          const job = await options.jobs.claimNext({ owner: options.owner, now: iso(), leaseUntil: iso(options.leaseMs) });
          if (!job) break;
          options.telemetry.record({ event: "job.claimed", job_id: job.id, correlation_id: job.correlation_id ?? undefined, data: { attempt: job.attempts } });
          startJob(job);
        }
        while (!stopping && deliveries.size < options.workers) {
          const job = await options.jobs.claimCallback({ owner: options.owner, now: iso(), leaseUntil: iso(options.leaseMs) });
          if (!job) break;
          startDelivery(job);
        }
      } catch (error) {
        if (isTransientDatabaseFault(error)) {
          // Paused, not broken: poll again with backoff (up to a second) until the database answers.
          pause(error);
          await sleep(Math.min(1000, options.pollMs * 2 ** Math.min(failedPolls, 10)));
          continue;
        }
        options.logger.error("queue poll failed", { error });
        await sleep(Math.min(5000, options.pollMs * 20));
      }
      if (!stopping) await sleep(options.pollMs);
    }
  }

  function startStatusLine(): void {
    let last = "";
    let lastPrinted = 0;
    statusTimer = setInterval(() => {
      options.jobs
        .countByStatus()
        .then((counts: Record<JobStatus, number>) => {
          const line = JSON.stringify(counts);
          const now = performance.now();
          if (line !== last || now - lastPrinted >= options.statusMs) {
            last = line;
            lastPrinted = now;
            options.logger.info("queue status", { ...counts, running_here: running.size, workers: options.workers });
          }
        })
        .catch(() => {});
    }, options.statusPollMs);
    statusTimer.unref();
  }

  return {
    start() {
      if (loop) return;
      startStatusLine();
      loop = run();
    },
    wake,
    abortCanceled(jobIds) {
      for (const id of jobIds) running.get(id)?.controller.abort({ kind: "canceled" satisfies AbortKind });
    },
    async stop({ graceMs }) {
      stopping = true;
      if (statusTimer) clearInterval(statusTimer);
      wake();
      await loop;
      const started = performance.now();
      options.logger.info("queue draining", { running: running.size, delivering: deliveries.size, grace_ms: graceMs });
      draining.abort();
      const idle = await idleWithin(graceMs);
      aborting = true;
      // Whatever still waits for the database now gives up: its lease lapses and another replica takes it over.
      givingUp.abort();
      const released = running.size;
      const interrupted = deliveries.size;
      for (const entry of running.values()) entry.controller.abort({ kind: "shutdown" satisfies AbortKind });
      for (const delivery of deliveries.values()) delivery.controller.abort({ kind: "shutdown" satisfies AbortKind });
      await Promise.all([...[...running.values()].map((entry) => entry.done), ...[...deliveries.values()].map((delivery) => delivery.done)]);
      options.logger.info("queue drained", { within_grace: idle, waited_ms: Math.round(performance.now() - started), jobs_requeued: released, deliveries_interrupted: interrupted });
    },
    get runningJobs() {
      return running.size;
    },
    get paused() {
      return pausedSince !== undefined;
    },
  };
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

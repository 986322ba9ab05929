import type { Clock } from "@deliberate/engine";
import type { ApiRepositories } from "../../store/contribution.ts";
import type { Job, RecoveryMessages } from "../../store/repositories/job.repository.ts";
import type { Logger } from "../../logger.ts";
import type { Telemetry } from "../../telemetry.ts";

/** What processing a job produced. */
export type JobOutcome =
  | { status: "done"; result: Record<string, unknown> }
  | { status: "failed"; error: Record<string, unknown> };

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

/** A job this process is running. */
export interface RunningJob {
  job: Job;
  controller: AbortController;
  done: Promise<void>;
}

/** A callback this process is delivering. */
export interface RunningDelivery {
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Everything the pool's steps (loop, lease keeping, job runs, drain) share. One mutable record rather than
 * a closure, so each step can live in its own file and still see the same maps and flags.
 */
export interface PoolState {
  readonly options: WorkerPoolOptions;
  readonly running: Map<string, RunningJob>;
  readonly deliveries: Map<string, RunningDelivery>;
  /** Set once stop() is called: the loop stops claiming. */
  stopping: boolean;
  /** Aborted when the drain starts: deliveries stop between attempts. */
  readonly draining: AbortController;
  /** Set once the grace is over: nothing new starts, what runs is aborted. */
  aborting: boolean;
  /** Aborted when shutdown's grace is over: bookkeeping stops waiting for the database then. */
  readonly givingUp: AbortController;
  lastRenewal: number;
  lastRecovery: number;
  /** Set while the database is away: the loop backs off and claims nothing until a poll passes again. */
  pausedSince: number | undefined;
  failedPolls: number;
  /** Ends the loop's current sleep early (set while it sleeps). */
  wakeUp: (() => void) | undefined;
}

/** A fresh, idle pool state. */
export function createPoolState(options: WorkerPoolOptions): PoolState {
  return {
    options,
    running: new Map(),
    deliveries: new Map(),
    stopping: false,
    draining: new AbortController(),
    aborting: false,
    givingUp: new AbortController(),
    lastRenewal: 0,
    lastRecovery: 0,
    pausedSince: undefined,
    failedPolls: 0,
    wakeUp: undefined,
  };
}

/** The queue's clock as an ISO timestamp, `offsetMs` from now. */
export function isoAt(state: PoolState, offsetMs = 0): string {
  return new Date(state.options.clock.now().getTime() + offsetMs).toISOString();
}

/** Ends the loop's sleep so it looks for work now. */
export function wake(state: PoolState): void {
  state.wakeUp?.();
}

/** Sleeps `milliseconds`, or less if {@link wake} is called meanwhile. */
export function sleep(state: PoolState, milliseconds: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      state.wakeUp = undefined;
      resolve();
    }
    state.wakeUp = done;
  });
}

import type { AbortKind, WorkerPoolOptions } from "./worker-pool/pool-state.ts";
import { createPoolState, wake } from "./worker-pool/pool-state.ts";
import { drain } from "./worker-pool/drain.ts";
import { pollLoop } from "./worker-pool/poll-loop.ts";
import { startStatusLine } from "./worker-pool/status-line.ts";

export type { AbortKind, JobOutcome, WorkerPoolOptions } from "./worker-pool/pool-state.ts";

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

/**
 * A pool of `workers` job slots in this process. One loop claims queued jobs
 * with the repository's conditional UPDATE (so processes sharing the database
 * never run the same job), renews the leases it holds, takes back jobs whose
 * process died (lease expired), and picks up callbacks left undelivered.
 * The steps live in `worker-pool/`; this wires them to one shared state.
 */
export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const state = createPoolState(options);
  let loop: Promise<void> | undefined;
  let statusTimer: NodeJS.Timeout | undefined;
  return {
    start() {
      if (loop) return;
      statusTimer = startStatusLine(state);
      loop = pollLoop(state);
    },
    wake: () => wake(state),
    abortCanceled(jobIds) {
      for (const id of jobIds) state.running.get(id)?.controller.abort({ kind: "canceled" satisfies AbortKind });
    },
    async stop({ graceMs }) {
      state.stopping = true;
      if (statusTimer) clearInterval(statusTimer);
      wake(state);
      await loop;
      await drain(state, graceMs);
    },
    get runningJobs() {
      return state.running.size;
    },
    get paused() {
      return state.pausedSince !== undefined;
    },
  };
}

import type { JobStatus } from "../../store/repositories/job.repository.ts";
import type { PoolState } from "./pool-state.ts";

/** Logs the queue's counts when they change, and at least every `statusMs`; returns the (unref'd) timer. */
export function startStatusLine(state: PoolState): NodeJS.Timeout {
  const { options } = state;
  let last = "";
  let lastPrinted = 0;
  const timer = setInterval(() => {
    options.jobs
      .countByStatus()
      .then((counts: Record<JobStatus, number>) => {
        const line = JSON.stringify(counts);
        const now = performance.now();
        if (line !== last || now - lastPrinted >= options.statusMs) {
          last = line;
          lastPrinted = now;
          options.logger.info("queue status", {
            ...counts,
            running_here: state.running.size,
            workers: options.workers,
          });
        }
      })
      .catch(() => {});
  }, options.statusPollMs);
  timer.unref();
  return timer;
}

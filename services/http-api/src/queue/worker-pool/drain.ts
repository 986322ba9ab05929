import { renewWhenDue } from "./lease-keeping.ts";
import type { AbortKind, PoolState } from "./pool-state.ts";

/**
 * The drain after the loop stopped: running jobs and callbacks in flight get `graceMs` to finish; then what
 * is left is aborted (jobs go back to the queue, undelivered callbacks stay pending, unleased).
 */
export async function drain(state: PoolState, graceMs: number): Promise<void> {
  const { options, running, deliveries } = state;
  const started = performance.now();
  options.logger.info("queue draining", { running: running.size, delivering: deliveries.size, grace_ms: graceMs });
  state.draining.abort();
  const idle = await idleWithin(state, graceMs);
  state.aborting = true;
  // Whatever still waits for the database now gives up: its lease lapses and another replica takes it over.
  state.givingUp.abort();
  const released = running.size;
  const interrupted = deliveries.size;
  for (const entry of running.values()) entry.controller.abort({ kind: "shutdown" satisfies AbortKind });
  for (const delivery of deliveries.values()) delivery.controller.abort({ kind: "shutdown" satisfies AbortKind });
  await Promise.all([
    ...[...running.values()].map((entry) => entry.done),
    ...[...deliveries.values()].map((delivery) => delivery.done),
  ]);
  options.logger.info("queue drained", {
    within_grace: idle,
    waited_ms: Math.round(performance.now() - started),
    jobs_requeued: released,
    deliveries_interrupted: interrupted,
  });
}

/** Waits until no job runs and no callback is being delivered, or `graceMs` passes; true when idle. */
async function idleWithin(state: PoolState, graceMs: number): Promise<boolean> {
  const { options, running, deliveries } = state;
  const deadline = performance.now() + graceMs;
  while (running.size + deliveries.size > 0) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    // A grace longer than a lease must not let another process take over what is draining here.
    await renewWhenDue(state).catch((error: unknown) =>
      options.logger.warn("lease renewal failed while draining", { error }),
    );
    let timer: NodeJS.Timeout | undefined;
    // Deliveries start as jobs finish: look again after whatever ends first (or the next heartbeat).
    const ends = [...running.values(), ...deliveries.values()].map((entry) => entry.done);
    await Promise.race([
      Promise.race(ends),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(left, options.leaseMs / 3)))),
    ]);
    clearTimeout(timer);
  }
  return true;
}

import type { JobAccepted } from "@deliberate/contracts";
import { DeliberateClientError } from "../errors.ts";
import { isApiUnavailable, type OutboxEntry, type OutboxStore } from "./outbox.ts";
import { createOutboxSettlements, type OutboxOutcome } from "./outbox-settlements.ts";

export interface OutboxDrainOptions {
  store: OutboxStore;
  /** Sends one entry (one attempt, no retries: the drain retries). */
  send: (entry: OutboxEntry) => Promise<JobAccepted>;
  /** First wait before retrying, doubled per attempt. */
  retryMs: number;
  /** Longest wait between retries. */
  maxRetryMs: number;
  onDelivered?: (entry: OutboxEntry, accepted: JobAccepted) => void;
  onRejected?: (entry: OutboxEntry, error: DeliberateClientError) => void;
  now?: () => number;
}

/** What happened to queued entries, for the host. */
export interface OutboxDrain {
  /** Keeps `entry` durably and schedules its delivery. */
  enqueue(entry: OutboxEntry): Promise<void>;
  /** Tries every due entry now (`force`: every queued one), oldest first, stopping at the first sign the API is still unavailable. */
  flush(force?: boolean): Promise<{ delivered: number; rejected: number; remaining: number }>;
  /** Resolves when `id` is delivered (with the job), rejects when the API refuses it. */
  delivered(id: string): Promise<JobAccepted>;
  /** Stops the timer (entries stay in the store). */
  close(): void;
}

function toError(error: unknown): DeliberateClientError {
  return DeliberateClientError.isInstance(error)
    ? error
    : new DeliberateClientError({
        code: "INTERNAL",
        message: error instanceof Error ? error.message : String(error),
        cause: error,
      });
}

/**
 * One delivery attempt: delivered (deleted from the store), unavailable (kept, the next attempt backed off), or
 * rejected by the API (kept as `rejected`, reported, never sent again).
 */
async function deliverEntry(
  options: OutboxDrainOptions,
  entry: OutboxEntry,
  settle: (id: string, outcome: OutboxOutcome) => void,
  now: () => number,
): Promise<"delivered" | "rejected" | "unavailable"> {
  try {
    const accepted = await options.send(entry);
    await options.store.delete(entry.id);
    settle(entry.id, { accepted });
    options.onDelivered?.(entry, accepted);
    return "delivered";
  } catch (thrown) {
    const error = toError(thrown);
    const attempts = entry.attempts + 1;
    const lastError = { code: error.code, message: error.message };
    if (isApiUnavailable(error)) {
      const delay = Math.min(options.maxRetryMs, options.retryMs * 2 ** Math.min(20, entry.attempts));
      await options.store.put({ ...entry, attempts, lastError, nextAttemptAt: new Date(now() + delay).toISOString() });
      return "unavailable";
    }
    const rejected: OutboxEntry = { ...entry, attempts, lastError, state: "rejected" };
    await options.store.put(rejected);
    settle(entry.id, { error });
    options.onRejected?.(rejected, error);
    return "rejected";
  }
}

/**
 * Delivers queued intents when the API returns: a timer (not keeping the process alive) tries the due entries with
 * exponential backoff; a delivered entry is deleted, a refused one (4xx) is kept as `rejected` and reported, never
 * sent again. At start it picks up what an earlier process left in the store.
 */
export function createOutboxDrain(options: OutboxDrainOptions): OutboxDrain {
  const now = options.now ?? Date.now;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let running: Promise<{ delivered: number; rejected: number; remaining: number }> | undefined;
  let closed = false;
  // The first pass of a process tries everything: an earlier process's backoff says nothing about the API now.
  let forceNext = false;

  const { settle, delivered } = createOutboxSettlements(options.store);

  function schedule(at: number) {
    if (closed || at >= timerAt) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
        void flush(forceNext).catch(() => schedule(now() + options.retryMs));
        forceNext = false;
      },
      Math.max(0, at - now()),
    );
    // A host's process may exit with entries queued: they stay in the store for the next one.
    (timer as { unref?: () => void }).unref?.();
  }

  async function pass(force: boolean) {
    const counts = { delivered: 0, rejected: 0, remaining: 0 };
    const queued = (await options.store.list()).filter((entry) => entry.state === "queued");
    let unavailable = false;
    for (const entry of queued) {
      if (unavailable || (!force && Date.parse(entry.nextAttemptAt) > now())) {
        counts.remaining += 1;
        continue;
      }
      const result = await deliverEntry(options, entry, settle, now);
      if (result === "unavailable") {
        // The API is still away: the rest wait for the next round, in order.
        unavailable = true;
        counts.remaining += 1;
      } else counts[result] += 1;
    }
    if (counts.remaining > 0) {
      const due = (await options.store.list())
        .filter((entry) => entry.state === "queued")
        .map((entry) => Date.parse(entry.nextAttemptAt));
      schedule(due.length > 0 ? Math.max(now(), Math.min(...due)) : now() + options.retryMs);
    }
    return counts;
  }

  function flush(force = false) {
    // One pass at a time; a flush asked for during one runs after it.
    const next = (running ?? Promise.resolve()).catch(() => undefined).then(() => pass(force));
    running = next.finally(() => {
      if (running === next) running = undefined;
    });
    return next;
  }

  // What an earlier process left behind.
  void options.store.list().then(
    (entries) => {
      if (entries.some((entry) => entry.state === "queued")) {
        forceNext = true;
        schedule(now());
      }
    },
    () => schedule(now() + options.retryMs),
  );

  return {
    async enqueue(entry) {
      await options.store.put(entry);
      schedule(Date.parse(entry.nextAttemptAt));
    },
    flush: (force) => flush(force),
    delivered,
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

import { isTransientDatabaseFault } from "@deliberate/base";
import type { Kysely } from "kysely";
import type { Database } from "./database.ts";
import {
  createInvocationRepository,
  type InvocationRepository,
  type NewInvocation,
} from "./repositories/invocation.repository.ts";

/**
 * How invocation rows are written: in batches, so a call does not pay a commit
 * of its own for its bookkeeping row. A batch is committed on the turn of the
 * event loop after it reaches `maxRows` (at once if a burst doubles it first),
 * `maxDelayMs` after its first row, before any read of the invocations
 * through the store, and when the store closes. A crash (not a shutdown)
 * loses at most the rows not yet written: fewer than `2 * maxRows` (normally
 * at most `maxRows`), none older than `maxDelayMs`. A tool's own state
 * changes are never batched: they commit before the call returns.
 */
export interface InvocationBatchOptions {
  /** Rows that make a batch full (a crash loses fewer than twice this many). */
  maxRows: number;
  /** The longest a row waits before it is written. */
  maxDelayMs: number;
  /**
   * Called when rows cannot be written and are dropped: a batch that failed for a reason other than the
   * database being away, or rows past `maxHeldRows` while it is.
   */
  onError?: (error: unknown, rows: number) => void;
  /**
   * While the database is unavailable (`isTransientDatabaseFault`), failed batches are kept and written again
   * every `retryMs`, up to this many rows (the oldest beyond it are dropped); default 10,000.
   */
  maxHeldRows?: number;
  /** How long a batch that failed on an unavailable database waits before it is written again; default 1,000 ms. */
  retryMs?: number;
}

/** What the services use: a crash loses at most the last 16 rows (31 in a burst), none older than 20 ms. */
export const defaultInvocationBatch: InvocationBatchOptions = { maxRows: 16, maxDelayMs: 20 };

/** The invocations repository with batched `record`; reads flush first, so they see every recorded row. */
export type BatchedInvocationRepository = InvocationRepository;

export function batchInvocations(db: Kysely<Database>, options: InvocationBatchOptions): BatchedInvocationRepository {
  if (!Number.isInteger(options.maxRows) || options.maxRows < 1)
    throw new Error(`invocationBatch.maxRows must be a whole number >= 1 (got ${options.maxRows})`);
  const direct = createInvocationRepository(db);
  let buffer: NewInvocation[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let writing: Promise<void> = Promise.resolve();

  const maxHeldRows = options.maxHeldRows ?? 10_000;
  const retryMs = options.retryMs ?? 1000;

  function drop(error: unknown, rows: number): void {
    if (options.onError) options.onError(error, rows);
    else
      process.emitWarning(
        `Deliberate: ${rows} invocation rows could not be written: ${(error as Error).message ?? String(error)}`,
      );
  }

  // The database is away (restarting, unreachable, busy): keep the rows, oldest first, and try again later.
  function holdForRetry(batch: NewInvocation[], error: unknown): void {
    buffer = [...batch, ...buffer];
    const excess = buffer.length - maxHeldRows;
    if (excess > 0) {
      buffer = buffer.slice(excess);
      drop(error, excess);
    }
    if (immediate === undefined && timer === undefined) {
      timer = setTimeout(() => void flush(), retryMs);
      timer.unref();
    }
  }

  function flush(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
    if (buffer.length > 0) {
      const batch = buffer;
      buffer = [];
      // Batches are written in order, one transaction each.
      // On SQLite with the connection free, one synchronous transaction (else a kysely one, waiting for it).
      writing = writing.then(() =>
        direct
          .recordMany(batch)
          .catch((error: unknown) =>
            isTransientDatabaseFault(error) ? holdForRetry(batch, error) : drop(error, batch.length),
          ),
      );
    }
    return writing;
  }

  // Every read flushes first, so the store always reads what it was told to record.
  const reads = Object.fromEntries(
    Object.entries(direct).map(([name, method]) => [
      name,
      async (...args: unknown[]) => {
        await flush();
        return (method as (...parameters: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as InvocationRepository;
  return {
    ...reads,
    async record(input) {
      buffer.push(input);
      if (buffer.length >= 2 * options.maxRows) void flush();
      else if (buffer.length >= options.maxRows) {
        // Full: written on the next turn of the event loop, after the response that recorded the row has gone out.
        if (!immediate) immediate = setImmediate(() => void flush());
      } else if (timer === undefined) {
        timer = setTimeout(() => void flush(), options.maxDelayMs);
        timer.unref();
      }
    },
    async recordMany(inputs) {
      for (const input of inputs) buffer.push(input);
      await flush();
    },
    flush,
  };
}

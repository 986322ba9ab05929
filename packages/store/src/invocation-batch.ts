import type { Kysely } from "kysely";
import type { Database } from "./database.ts";
import { createInvocationRepository, type InvocationRepository, type NewInvocation } from "./repositories/invocation.repository.ts";

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
  /** Called when a batch cannot be written (its rows are dropped). */
  onError?: (error: unknown, rows: number) => void;
}

/** What the services use: a crash loses at most the last 16 rows (31 in a burst), none older than 20 ms. */
export const defaultInvocationBatch: InvocationBatchOptions = { maxRows: 16, maxDelayMs: 20 };

/** The invocations repository with batched `record`; reads flush first, so they see every recorded row. */
export type BatchedInvocationRepository = InvocationRepository;

export function batchInvocations(db: Kysely<Database>, options: InvocationBatchOptions): BatchedInvocationRepository {
  if (!Number.isInteger(options.maxRows) || options.maxRows < 1) throw new Error(`invocationBatch.maxRows must be a whole number >= 1 (got ${options.maxRows})`);
  const direct = createInvocationRepository(db);
  let buffer: NewInvocation[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let writing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    if (immediate !== undefined) clearImmediate(immediate);
    timer = undefined;
    immediate = undefined;
    if (buffer.length > 0) {
      const batch = buffer;
      buffer = [];
      // Batches are written in order, one transaction each.
      writing = writing.then(() =>
        db
          .transaction()
          .execute((transaction) => createInvocationRepository(transaction).recordMany(batch))
          .catch((error: unknown) => {
            if (options.onError) options.onError(error, batch.length);
            else process.emitWarning(`Deliberate: ${batch.length} invocation rows could not be written: ${(error as Error).message ?? String(error)}`);
          }),
      );
    }
    return writing;
  }

  // Every read flushes first, so the store always reads what it was told to record.
  const reads = Object.fromEntries(
    Object.entries(direct).map(([name, method]) => [name, async (...args: unknown[]) => {
      await flush();
      return (method as (...parameters: unknown[]) => Promise<unknown>)(...args);
    }]),
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

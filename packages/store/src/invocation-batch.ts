import { isTransientDatabaseFault } from "@deliberate/base";
import type { Kysely } from "kysely";
import type { Database } from "./database.ts";
import type { DirectSqlite } from "./direct-sqlite.ts";
import type { GroupCommitPassenger } from "./group-commit.ts";
import {
  createInvocationRepository,
  insertWithRollupsNow,
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
 *
 * With group commit on SQLite (the store attaches the batch to it), a due
 * batch (full, or its oldest row `maxDelayMs` old) whose turn comes while a
 * group of calls is open is written in that group's transaction, sharing its
 * COMMIT, at the end of that turn of the event loop; a burst then waits for
 * that COMMIT too instead of being written at once.
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

/**
 * What the services use: a crash loses none older than 20 ms (at most the last
 * 128 rows, 255 in a burst). 128, not 16: each row adds a random page of the
 * latency index to its COMMIT, and a bigger batch shares those pages (measured
 * under 50 connections of writes: 20.7 → 15.5 µs of the main thread per row).
 */
export const defaultInvocationBatch: InvocationBatchOptions = { maxRows: 128, maxDelayMs: 20 };

/**
 * The invocations repository with batched `record`; reads flush first, so they see every recorded row.
 * It is also a {@link GroupCommitPassenger}: on SQLite with group commit, the rows waiting when a
 * group of calls commits are written in that group's transaction and share its COMMIT.
 */
export type BatchedInvocationRepository = InvocationRepository & GroupCommitPassenger;

/**
 * The rows waiting to be written and when they are written (see
 * {@link InvocationBatchOptions}); one per batching store.
 */
class InvocationBuffer implements GroupCommitPassenger {
  private buffer: NewInvocation[] = [];
  /** Whether a group of calls is open (set by the store's group commit, which boards the rows at its COMMIT). */
  private groupOpen: () => boolean = () => false;
  /** Whether a group commit takes the rows (`attach`). */
  private boarding = false;
  /** When the oldest waiting row was recorded (0: rows given back, due at once). */
  private oldestAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Why the rows waiting now were given back (the database away), if they were: closing then reports them. */
  private heldError: unknown;
  private readonly maxHeldRows: number;
  private readonly retryMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly direct: InvocationRepository,
    private readonly options: InvocationBatchOptions,
  ) {
    this.maxHeldRows = options.maxHeldRows ?? 10_000;
    this.retryMs = options.retryMs ?? 1000;
  }

  attach(open: () => boolean): void {
    this.groupOpen = open;
    this.boarding = true;
  }

  record(input: NewInvocation): void {
    const { maxRows, maxDelayMs } = this.options;
    if (this.buffer.length === 0) this.oldestAt = Date.now();
    this.buffer.push(input);
    // A burst: written at once (with group commit, on the next turn unless a group of calls takes it first).
    if (this.buffer.length >= 2 * maxRows && !this.boarding) void this.flush();
    else if (this.buffer.length >= maxRows) {
      // Full: written on the next turn of the event loop, after the response that recorded the row has gone out.
      this.immediate ??= setImmediate(() => this.flushUnlessBoarding());
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => (this.boarding ? this.flushUnlessBoarding() : void this.flush()), maxDelayMs);
      this.timer.unref();
    }
  }

  recordMany(inputs: readonly NewInvocation[]): Promise<void> {
    for (const input of inputs) this.buffer.push(input);
    return this.flush();
  }

  flush(): Promise<void> {
    this.clearScheduled();
    if (this.buffer.length > 0) {
      const batch = this.buffer;
      this.buffer = [];
      this.heldError = undefined;
      // Batches are written in order, one transaction each.
      // On SQLite with the connection free, one synchronous transaction (else a kysely one, waiting for it).
      this.writing = this.writing.then(() =>
        this.direct.recordMany(batch).catch((error: unknown) => this.failed(batch, error)),
      );
    }
    return this.writing;
  }

  /**
   * Written in a group's transaction: its statements in a savepoint, so a failure leaves the group's writes alone.
   * Throws the rows' error only when SQLite undid the whole transaction with it (nothing of the group can commit).
   */
  board(sqlite: DirectSqlite): ((committed: boolean, error?: unknown) => void) | undefined {
    // Not yet due: rows wait to make a bigger batch (each row costs less in a bigger one: fewer pages per row).
    if (this.buffer.length === 0 || !this.due()) return undefined;
    const batch = this.buffer;
    this.buffer = [];
    this.clearScheduled();
    try {
      sqlite.run("savepoint invocation_rows", []);
    } catch (error) {
      this.failed(batch, error);
      return undefined;
    }
    try {
      insertWithRollupsNow(this.db, sqlite, batch);
      sqlite.run("release savepoint invocation_rows", []);
    } catch (error) {
      // Kept or dropped for the insert's own error (a full disk is kept), not for what follows.
      this.failed(batch, error);
      try {
        sqlite.run("rollback to savepoint invocation_rows", []);
        sqlite.run("release savepoint invocation_rows", []);
      } catch {
        // SQLite rolled the whole transaction back with the failed statement (SQLITE_FULL, an I/O error, out of
        // memory, when the statement had no journal of its own): the calls' writes are gone too, so the group
        // fails with the error that undid them.
        throw error;
      }
      return undefined;
    }
    // A read flushes first: it waits for the group's COMMIT, so it sees these rows.
    let landed: () => void = () => {};
    const written = new Promise<void>((resolve) => {
      landed = resolve;
    });
    this.writing = this.writing.then(() => written);
    return (committed) => {
      // The group's COMMIT failed: nothing of the batch landed; it is written again as a batch of its own.
      if (!committed) {
        this.buffer = [...batch, ...this.buffer];
        this.oldestAt = 0;
        this.immediate ??= setImmediate(() => void this.flush());
      }
      landed();
    };
  }

  /**
   * The store closes: the waiting rows are written, and those recorded meanwhile (calls finishing as the
   * service stops); rows the database still refuses are reported through `onError` (nothing retries them
   * after the close), never lost unsaid.
   */
  async close(): Promise<void> {
    await this.flush();
    if (this.buffer.length > 0 && this.heldError === undefined) await this.flush();
    this.clearScheduled();
    if (this.buffer.length === 0) return;
    const rows = this.buffer.length;
    this.buffer = [];
    this.drop(this.heldError ?? new Error("the store closed before they were written"), rows);
  }

  /** Rows are due once the batch is full or its oldest row is `maxDelayMs` old: a group takes them only then. */
  private due(): boolean {
    return this.buffer.length >= this.options.maxRows || Date.now() - this.oldestAt >= this.options.maxDelayMs;
  }

  /**
   * A due batch's turn: a group of calls open now commits at the end of this
   * turn and takes the rows with it (see `board`); else they are written now.
   * Should that group not commit (it failed), the timer writes them.
   */
  private flushUnlessBoarding(): void {
    this.clearScheduled();
    if (!this.groupOpen()) {
      void this.flush();
      return;
    }
    this.timer = setTimeout(() => void this.flush(), this.options.maxDelayMs);
    this.timer.unref();
  }

  /** A batch that could not be written: kept for later when the database is away, else dropped. */
  private failed(batch: NewInvocation[], error: unknown): void {
    if (isTransientDatabaseFault(error)) this.holdForRetry(batch, error);
    else this.drop(error, batch.length);
  }

  private drop(error: unknown, rows: number): void {
    if (this.options.onError) this.options.onError(error, rows);
    else
      process.emitWarning(
        `Deliberate: ${rows} invocation rows could not be written: ${(error as Error).message ?? String(error)}`,
      );
  }

  // The database is away (restarting, unreachable, busy): keep the rows, oldest first, and try again later.
  private holdForRetry(batch: NewInvocation[], error: unknown): void {
    this.heldError = error;
    this.buffer = [...batch, ...this.buffer];
    this.oldestAt = 0;
    const excess = this.buffer.length - this.maxHeldRows;
    if (excess > 0) {
      this.buffer = this.buffer.slice(excess);
      this.drop(error, excess);
    }
    if (this.immediate === undefined && this.timer === undefined) {
      this.timer = setTimeout(() => void this.flush(), this.retryMs);
      this.timer.unref();
    }
  }

  private clearScheduled(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }
}

/** What `record` answers once the row is in the buffer. */
const recorded: Promise<void> = Promise.resolve();

/** Each batching repository's rows, for {@link closeInvocationBatch} (not a method: handlers see the repository). */
const buffers = new WeakMap<BatchedInvocationRepository, InvocationBuffer>();

/**
 * Called by the store as it closes: writes the rows still waiting (see `InvocationBuffer.close`) and reports
 * through `onError` those that cannot be written.
 */
export function closeInvocationBatch(repository: BatchedInvocationRepository): Promise<void> {
  return buffers.get(repository)?.close() ?? Promise.resolve();
}

export function batchInvocations(db: Kysely<Database>, options: InvocationBatchOptions): BatchedInvocationRepository {
  if (!Number.isInteger(options.maxRows) || options.maxRows < 1)
    throw new Error(`invocationBatch.maxRows must be a whole number >= 1 (got ${options.maxRows})`);
  const direct = createInvocationRepository(db);
  const rows = new InvocationBuffer(db, direct, options);
  // Every read flushes first, so the store always reads what it was told to record.
  const reads = Object.fromEntries(
    Object.entries(direct).map(([name, method]) => [
      name,
      async (...args: unknown[]) => {
        await rows.flush();
        return (method as (...parameters: unknown[]) => Promise<unknown>)(...args);
      },
    ]),
  ) as unknown as InvocationRepository;
  const repository: BatchedInvocationRepository = {
    ...reads,
    board: (sqlite) => rows.board(sqlite),
    attach: (open) => rows.attach(open),
    // Buffered synchronously: an already-settled promise, not an async function's (the engine awaits it per call).
    record(input) {
      try {
        rows.record(input);
        return recorded;
      } catch (error) {
        return Promise.reject(error);
      }
    },
    recordMany: (inputs) => rows.recordMany(inputs),
    flush: () => rows.flush(),
  };
  buffers.set(repository, rows);
  return repository;
}

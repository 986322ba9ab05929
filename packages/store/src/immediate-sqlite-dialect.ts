import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type TransactionSettings,
} from "kysely";
import { SqliteLimitQueryCompiler } from "./sqlite-query-compiler.ts";

/** Whether `error` is SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * The waits between two tries of a `begin immediate` that found the write lock
 * taken (ms; the last repeats). Short: the lock is usually a RESTART checkpoint
 * of a few to tens of milliseconds, and every call of the next group waits
 * for this try (one failed try costs microseconds; longer steps made the
 * group start up to 8 ms after the lock was free).
 */
const retryDelaysMs = [1, 1, 2];

/** A SQLite connection as the dialect is given it: statements prepared (from the statement cache) and run. */
export interface StatementRunner {
  prepare(sql: string): {
    readonly reader: boolean;
    run(parameters: readonly unknown[]): unknown;
    all(parameters: readonly unknown[]): unknown;
  };
}

/** Runs one statement without parameters, synchronously (a pragma returns a row). */
function runSql(database: StatementRunner, sql: string): void {
  const statement = database.prepare(sql);
  if (statement.reader) statement.all(noParameters);
  else statement.run(noParameters);
}
const noParameters: readonly unknown[] = [];

/**
 * Puts the connection's temporary storage back to the default (a file) once a
 * write transaction has ended. A write transaction keeps its temporary storage
 * in memory (set as it begins: {@link beginImmediateNow}): its statement
 * journal (a multi-row insert or an upsert opens one) is then no temporary
 * file created, written (up to about 190 page writes for a group commit of
 * decisions) and unlinked. Outside write transactions it stays a file: with
 * MEMORY SQLite's sorter never spills to disk, so a read's GROUP BY or ORDER
 * BY over many rows (`reasoning_metrics` with `since` sorts every matching row)
 * would hold them all in RAM. SQLite refuses the change inside a transaction
 * (after a failed commit): it is then made after the rollback.
 */
export function endWriteTransactionStorage(database: StatementRunner): void {
  try {
    runSql(database, "pragma temp_store = default");
  } catch {
    // Still in the transaction (a failed COMMIT): the rollback that follows puts it back.
  }
}

/**
 * One `begin immediate` that does not wait for the write lock: undefined when
 * it began, SQLite's lock error when another connection holds the lock (any
 * other error is thrown). The try is made with `busy_timeout = 0`, then the
 * connection's `busyTimeoutMs` is put back, so statements run afterwards keep their wait.
 * The transaction's temporary storage is in memory (see {@link endWriteTransactionStorage}).
 */
function beginImmediateNow(database: StatementRunner, busyTimeoutMs: number): unknown {
  runSql(database, "pragma busy_timeout = 0");
  runSql(database, "pragma temp_store = memory");
  try {
    runSql(database, "begin immediate");
    return undefined;
  } catch (error) {
    endWriteTransactionStorage(database);
    if (!isSqliteBusy(error)) throw error;
    return error;
  } finally {
    runSql(database, `pragma busy_timeout = ${busyTimeoutMs}`);
  }
}

/** {@link beginImmediateNow} as a yes or no: true when the transaction began, false when the lock is taken. */
export function tryBeginImmediate(database: StatementRunner, busyTimeoutMs: number): boolean {
  return beginImmediateNow(database, busyTimeoutMs) === undefined;
}

/**
 * Runs `begin immediate` without blocking the event loop while another
 * connection holds the write lock. SQLite's busy handler (`busy_timeout`)
 * waits by sleeping the calling thread — here the thread serving every
 * request — so a background WAL checkpoint holding the lock (a RESTART) or
 * another process's write stalled every request, reads included, for up to
 * tens of milliseconds. Here each try fails at once when the lock is taken
 * ({@link beginImmediateNow}) and is repeated after a timer (1, 1, then
 * every 2 ms); once `busyTimeoutMs` has passed, SQLite's lock error
 * (SQLITE_BUSY, "database is locked") is thrown, as the busy handler would.
 */
export async function beginImmediateWithoutBlocking(database: StatementRunner, busyTimeoutMs: number): Promise<void> {
  const deadline = performance.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt += 1) {
    const locked = beginImmediateNow(database, busyTimeoutMs);
    if (locked === undefined) return;
    const remaining = deadline - performance.now();
    if (remaining <= 0) throw locked;
    const delay = Math.min(retryDelaysMs[Math.min(attempt, retryDelaysMs.length - 1)] as number, remaining);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * The SQLite driver with write transactions: `begin immediate` takes the write
 * lock when the transaction starts. A deferred `begin` takes it at the first
 * write, and when another connection wrote in between, SQLite cannot wait
 * (upgrading a read to a write would deadlock), so it fails at once with
 * SQLITE_BUSY ("database is locked") whatever `busy_timeout` says. Starting as a
 * writer makes the wait happen at `begin`, where the wait applies, and that
 * wait runs on timers, not by sleeping the thread ({@link beginImmediateWithoutBlocking}).
 * A `read only` transaction (`Store.snapshot`) starts deferred: it only reads,
 * so it takes no write lock and its snapshot starts at its first read.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  readonly #database: StatementRunner;
  readonly #busyTimeoutMs: number;
  constructor(config: SqliteDialectConfig & { database: StatementRunner }, busyTimeoutMs: number) {
    super(config);
    this.#database = config.database;
    this.#busyTimeoutMs = busyTimeoutMs;
  }

  // kysely passes the settings to every driver; SqliteDriver declares the one parameter it uses.
  override async beginTransaction(connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    if (settings?.accessMode === "read only") await connection.executeQuery(CompiledQuery.raw("begin"));
    // kysely holds the connection for this transaction: nothing else of kysely's runs on it meanwhile.
    else await beginImmediateWithoutBlocking(this.#database, this.#busyTimeoutMs);
  }

  override async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.commitTransaction(connection);
    } finally {
      endWriteTransactionStorage(this.#database);
    }
  }

  /**
   * SQLite answers some failures of a statement (SQLITE_FULL, an I/O error, out of memory, when the statement
   * had no journal of its own) by rolling back the whole transaction itself. The ROLLBACK then has nothing to
   * undo: its "no transaction is active" would replace the statement's error (kysely throws the rollback's),
   * so a full disk, which is retryable, would be reported as a failure that is not.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await super.rollbackTransaction(connection);
    } catch (error) {
      if (!isNoTransactionActive(error)) throw error;
    } finally {
      endWriteTransactionStorage(this.#database);
    }
  }
}

/** Whether `error` is SQLite saying there is no transaction to end (SQLite already rolled it back). */
function isNoTransactionActive(error: unknown): boolean {
  return error instanceof Error && /^cannot rollback - no transaction is active$/.test(error.message);
}

/**
 * Kysely's SQLite dialect whose transactions start with `begin immediate`
 * without blocking the event loop (see {@link ImmediateSqliteDriver}) and whose
 * LIMIT is not re-planned on every run (see {@link SqliteLimitQueryCompiler});
 * everything else is `SqliteDialect`'s. Savepoints inside a transaction are unchanged.
 * `database` is the connection itself (not a function making one); `busyTimeoutMs` is its `busy_timeout`.
 */
export function createImmediateSqliteDialect(
  config: SqliteDialectConfig & { database: StatementRunner },
  busyTimeoutMs: number,
): Dialect {
  const dialect = new SqliteDialect(config);
  return {
    createDriver: () => new ImmediateSqliteDriver(config, busyTimeoutMs),
    createQueryCompiler: () => new SqliteLimitQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

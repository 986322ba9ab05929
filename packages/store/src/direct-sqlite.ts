import type BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { endWriteTransactionStorage, type StatementRunner, tryBeginImmediate } from "./immediate-sqlite-dialect.ts";
import { storableParameters } from "./storable-text.ts";

/**
 * Runs SQL on SQLite's one connection synchronously, without kysely: a prepared
 * statement (prepared once per SQL text by `withStatementCache`) run with its
 * parameters (U+0000 stored as U+FFFD, as on every path: `storableParameters`).
 * Only ever handed out for a handle that holds the connection — a transaction
 * (see {@link directSqliteOf}) — so a statement run here is part of that
 * transaction and nothing else can run between two of them.
 *
 * A statement run here runs when it is called, not after the queries kysely
 * has queued before it. So that work running concurrently in one transaction
 * (a preset's steps) sees the same order as through kysely (first called,
 * first run), a repository that runs its writes here also runs its reads here.
 */
export interface DirectSqlite {
  /** Runs a statement that returns no rows. */
  run(sql: string, parameters: readonly unknown[]): void;
  /** Runs a statement and returns its first row (e.g. `insert ... returning`). */
  get<Row>(sql: string, parameters: readonly unknown[]): Row | undefined;
  /** Runs a statement and returns its rows. */
  all<Row>(sql: string, parameters: readonly unknown[]): Row[];
}

/** What `openSqliteDatabase` registers for a Kysely handle: its connection, through the statement cache. */
export interface RegisteredSqlite {
  /** The connection's statement cache. */
  readonly statements: StatementRunner;
  /** Whether the connection is in a transaction (better-sqlite3's `inTransaction`). */
  readonly connection: { readonly inTransaction: boolean };
  /** The connection's `busy_timeout`. */
  readonly busyTimeoutMs: number;
}

interface Registered extends RegisteredSqlite {
  readonly runner: DirectSqlite;
}

// By the handle's executor, not the handle: a module's `db.withTables<...>()` is another Kysely on the same executor
// (and so on the same connection, or the same transaction).
const registered = new WeakMap<object, Registered>();
const direct = new WeakMap<object, DirectSqlite>();

function directOn(preparer: StatementRunner): DirectSqlite {
  const statement = (sql: string) => preparer.prepare(sql) as unknown as BetterSqlite3.Statement;
  return {
    run(sql, parameters) {
      statement(sql).run(storableParameters(parameters) as unknown[]);
    },
    get<Row>(sql: string, parameters: readonly unknown[]) {
      return statement(sql).get(storableParameters(parameters) as unknown[]) as Row | undefined;
    },
    all<Row>(sql: string, parameters: readonly unknown[]) {
      return statement(sql).all(storableParameters(parameters) as unknown[]) as Row[];
    },
  };
}

/** Called by `openSqliteDatabase`: `db`'s connection, through its statement cache. */
export function registerSqliteConnection(db: Kysely<unknown>, sqlite: RegisteredSqlite): void {
  registered.set(db.getExecutor(), { ...sqlite, runner: directOn(sqlite.statements) });
}

/**
 * For a store's own SQLite handle (not a transaction) whose connection is in
 * no transaction right now: the statement runner, to run a read at once
 * instead of through kysely's build, executor and connection lock. Else
 * undefined (Postgres; or a transaction holds the connection — a read must
 * then wait for it through kysely, or it would see that transaction's
 * uncommitted writes). A read run here is one synchronous statement: it sees
 * exactly what is committed when it runs, as through kysely.
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function idleSqliteOf(db: Kysely<any>): DirectSqlite | undefined {
  const sqlite = registered.get(db.getExecutor());
  return sqlite === undefined || sqlite.connection.inTransaction ? undefined : sqlite.runner;
}

/**
 * Runs `work` in one write transaction on a store's own SQLite handle, at once
 * and synchronously — `begin immediate`, `work`'s statements, `commit` (or
 * `rollback` when `work` throws, and the error is thrown) — with nothing else
 * run on the connection between them. Returns false, having run nothing, when
 * that cannot be done now: not SQLite, a transaction holds the connection, or
 * another connection holds the write lock (the caller then goes through
 * kysely, which waits for it).
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function runSqliteTransactionNow(db: Kysely<any>, work: (sqlite: DirectSqlite) => void): boolean {
  const sqlite = registered.get(db.getExecutor());
  if (sqlite === undefined || sqlite.connection.inTransaction) return false;
  try {
    if (!tryBeginImmediate(sqlite.statements, sqlite.busyTimeoutMs)) return false;
  } catch (error) {
    // better-sqlite3 refuses any statement while one is still iterating (a streamed query holds the connection).
    if (isConnectionBusy(error)) return false;
    throw error;
  }
  try {
    work(sqlite.runner);
    sqlite.runner.run("commit", noParameters);
  } catch (error) {
    // A failed COMMIT may leave the transaction open (SQLITE_BUSY); a failed statement always does.
    if (sqlite.connection.inTransaction) sqlite.runner.run("rollback", noParameters);
    throw error;
  } finally {
    // Its statement journal was in memory; outside write transactions temporary storage is a file again.
    endWriteTransactionStorage(sqlite.statements);
  }
  return true;
}

/**
 * Whether `error` is better-sqlite3 refusing a statement because another one
 * is still iterating on the connection (a streamed query holds it): the
 * caller goes through kysely instead, which waits for the connection.
 */
export function isConnectionBusy(error: unknown): boolean {
  return error instanceof TypeError && /busy executing a query/i.test(error.message);
}

/**
 * Called by the store when it binds repositories to a transaction on SQLite
 * (`transaction` holds the database's one connection until it ends): the
 * repositories bound to it may run their hot statements directly.
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function markTransactionDirect(db: Kysely<any>, transaction: Kysely<any>): void {
  const sqlite = registered.get(db.getExecutor());
  if (sqlite !== undefined) direct.set(transaction.getExecutor(), sqlite.runner);
}

/**
 * The synchronous statement runner of a SQLite transaction handle the store
 * marked, else undefined (Postgres, or a handle that does not hold the
 * connection, which must go through kysely and wait for it).
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function directSqliteOf(db: Kysely<any>): DirectSqlite | undefined {
  return direct.get(db.getExecutor());
}

/**
 * Runs a statement without parameters (a savepoint, its release) on `db`:
 * directly when `db` is a marked SQLite transaction, else through kysely.
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export async function runStatement(db: Kysely<any>, text: string): Promise<void> {
  const runner = direct.get(db.getExecutor());
  if (runner !== undefined) runner.run(text, noParameters);
  else await sql.raw(text).execute(db);
}
const noParameters: readonly unknown[] = [];

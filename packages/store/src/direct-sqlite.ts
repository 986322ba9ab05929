import type BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
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

/** What `openSqliteDatabase` registers: the connection's statement cache, by the Kysely handle. */
interface Preparer {
  prepare(sql: string): unknown;
}

const preparers = new WeakMap<Kysely<unknown>, Preparer>();
const direct = new WeakMap<Kysely<unknown>, DirectSqlite>();

function directOn(preparer: Preparer): DirectSqlite {
  const statement = (sql: string) => preparer.prepare(sql) as BetterSqlite3.Statement;
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
export function registerSqliteConnection(db: Kysely<unknown>, preparer: Preparer): void {
  preparers.set(db, preparer);
}

/**
 * Called by the store when it binds repositories to a transaction on SQLite
 * (`transaction` holds the database's one connection until it ends): the
 * repositories bound to it may run their hot statements directly.
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function markTransactionDirect(db: Kysely<any>, transaction: Kysely<any>): void {
  const preparer = preparers.get(db);
  if (preparer !== undefined) direct.set(transaction, directOn(preparer));
}

/**
 * The synchronous statement runner of a SQLite transaction handle the store
 * marked, else undefined (Postgres, or a handle that does not hold the
 * connection, which must go through kysely and wait for it).
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function directSqliteOf(db: Kysely<any>): DirectSqlite | undefined {
  return direct.get(db);
}

/**
 * Runs a statement without parameters (a savepoint, its release) on `db`:
 * directly when `db` is a marked SQLite transaction, else through kysely.
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export async function runStatement(db: Kysely<any>, text: string): Promise<void> {
  const runner = direct.get(db);
  if (runner !== undefined) runner.run(text, noParameters);
  else await sql.raw(text).execute(db);
}
const noParameters: readonly unknown[] = [];

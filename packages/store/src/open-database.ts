import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DeliberateError } from "@deliberate/base";
import type BetterSqlite3 from "better-sqlite3";
import { Kysely } from "kysely";
import type { Database } from "./database.ts";
import { type BackgroundCheckpointOptions, startBackgroundCheckpoints } from "./background-checkpoints.ts";
import { registerSqliteConnection } from "./direct-sqlite.ts";
import { createImmediateSqliteDialect } from "./immediate-sqlite-dialect.ts";
import { withStorableText } from "./storable-text.ts";
import { loadSqliteDriver } from "./sqlite-driver.ts";
import { withStatementCache } from "./statement-cache.ts";

export interface OpenDatabaseOptions {
  /** File path, or ":memory:" for tests. Parent folders are created. */
  path: string;
  /** Milliseconds a writer waits for a lock held by another process. */
  busyTimeoutMs?: number;
  /**
   * WAL checkpoints on a worker thread instead of inside the COMMIT that crosses 1,000 pages
   * (`startBackgroundCheckpoints`); files only. Off by default.
   */
  backgroundCheckpoints?: boolean | BackgroundCheckpointOptions;
}

/**
 * Opens SQLite with the settings a service needs (WAL so readers never block the
 * writer, synchronous=NORMAL, busy_timeout, foreign keys). Transactions start with
 * `begin immediate`, so a writer waiting on another process honours busy_timeout
 * (waiting on timers, not by sleeping the event loop's thread).
 * Prepared statements are reused by SQL text (`withStatementCache`). U+0000 in
 * text is stored as U+FFFD, as on Postgres (`withStorableText`).
 * Migrations are `migrateToLatest`'s.
 */
export async function openSqliteDatabase(options: OpenDatabaseOptions): Promise<Kysely<Database>> {
  const inMemory = options.path === ":memory:";
  let connection: BetterSqlite3.Database;
  try {
    if (!inMemory) mkdirSync(dirname(options.path), { recursive: true });
    const Driver = loadSqliteDriver();
    connection = new Driver(options.path);
  } catch (error) {
    throw new DeliberateError({
      code: "STORAGE",
      message: `Cannot open the database at ${options.path}: ${(error as Error).message}`,
      hint: "Set DATABASE_PATH to a writable file path.",
      cause: error,
    });
  }
  if (!inMemory) connection.pragma("journal_mode = WAL");
  connection.pragma("synchronous = NORMAL");
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  connection.pragma(`busy_timeout = ${busyTimeoutMs}`);
  connection.pragma("foreign_keys = ON");
  // temp_store stays a file here: with MEMORY, SQLite's sorter never spills, so a read's GROUP BY or ORDER BY over
  // many rows (reasoning_metrics with `since`) holds them all in RAM. Write transactions keep their statement
  // journals in memory themselves (endWriteTransactionStorage).
  const database = withStatementCache(connection);
  const background =
    options.backgroundCheckpoints !== undefined && options.backgroundCheckpoints !== false && !inMemory
      ? startBackgroundCheckpoints(
          connection,
          options.path,
          options.backgroundCheckpoints === true ? {} : options.backgroundCheckpoints,
        )
      : undefined;
  if (background !== undefined) {
    const close = database.close.bind(database);
    database.close = () => {
      background.stop();
      close();
    };
  }
  const db = new Kysely<Database>({
    dialect: withStorableText(createImmediateSqliteDialect({ database }, busyTimeoutMs)),
  });
  // Transactions on this connection may run their hot writes as prepared statements, synchronously (and the
  // store's hot reads and invocation batches too, when no transaction holds the connection).
  registerSqliteConnection(db as Kysely<unknown>, { statements: database, connection, busyTimeoutMs });
  return db;
}

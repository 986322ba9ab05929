import type { Kysely } from "kysely";
import type { Database } from "./database.ts";
import type { DatabaseTarget } from "./database-target.ts";
import { type DialectName, dialectOf } from "./dialect.ts";
import { markTransactionDirect } from "./direct-sqlite.ts";
import { groupCommits } from "./group-commit.ts";
import { batchInvocations, closeInvocationBatch, type InvocationBatchOptions } from "./invocation-batch.ts";
import { migrateToLatest } from "./migrator.ts";
import { openSqliteDatabase } from "./open-database.ts";
import type { BackgroundCheckpointOptions } from "./background-checkpoints.ts";
import { openPostgresDatabase } from "./open-postgres.ts";
import type { StoreContribution } from "./store-contribution.ts";
import { createInvocationRepository } from "./repositories/invocation.repository.ts";
import { createSessionRepository } from "./repositories/session.repository.ts";
import { createSuspendedCallRepository } from "./repositories/suspended-call.repository.ts";
import { createThoughtRepository } from "./repositories/thought.repository.ts";

/** The repositories of the shared tables every module may use. */
export interface BaseRepositories {
  readonly db: Kysely<Database>;
  /** The dialect of `db`: "sqlite" or "postgres". */
  readonly dialect: DialectName;
  readonly sessions: ReturnType<typeof createSessionRepository>;
  readonly thoughts: ReturnType<typeof createThoughtRepository>;
  readonly invocations: ReturnType<typeof createInvocationRepository>;
  readonly suspendedCalls: ReturnType<typeof createSuspendedCallRepository>;
}

/** Repositories bound to one database handle or transaction: the shared ones plus every module's. */
export type Repositories<Extra extends object = object> = BaseRepositories & Extra;

/** The store handed to the engine: repositories, transactions, close. */
export type Store<Extra extends object = object> = Repositories<Extra> & {
  /**
   * Runs `work` in one transaction; everything it writes lands or nothing does.
   * Never hold a transaction across a model call.
   */
  transaction<T>(work: (repositories: Repositories<Extra>) => Promise<T>): Promise<T>;
  /**
   * Runs `work`'s reads on one consistent view of the database: every read sees
   * the same committed state, whatever other connections or replicas commit
   * meanwhile (a status made of several reads never mixes two moments). On
   * Postgres one `repeatable read, read only` transaction on one connection (its
   * snapshot is taken at its first statement; a write in it fails); on SQLite one
   * deferred read transaction (WAL: the snapshot is taken at the first read, and
   * writers on other connections are not blocked). Reads only; never across a model call.
   */
  snapshot<T>(work: (repositories: Repositories<Extra>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * Opens a transaction the caller commits or rolls back itself (see
   * {@link createCallScope}). Absent on stores that cannot open one (a joined transaction).
   */
  begin?(): Promise<OpenTransaction<Extra>>;
  /** The names of the contributions this store was opened with. */
  readonly contributors: ReadonlySet<string>;
};

/** A transaction opened by {@link Store.begin}: its repositories, and how it ends. */
export interface OpenTransaction<Extra extends object = object> {
  readonly repositories: Repositories<Extra>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

function bindBase(db: Kysely<Database>): BaseRepositories {
  return {
    db,
    dialect: dialectOf(db),
    sessions: createSessionRepository(db),
    thoughts: createThoughtRepository(db),
    invocations: createInvocationRepository(db),
    suspendedCalls: createSuspendedCallRepository(db),
  };
}

/** A function binding every contribution's repositories to a handle; refuses two contributions naming one repository. */
export function bindRepositories(contributions: readonly StoreContribution[]): (db: Kysely<Database>) => Repositories {
  return (db) => {
    const bound: Record<string, unknown> = { ...bindBase(db) };
    for (const contribution of contributions) {
      const extra = contribution.repositories?.(db) ?? {};
      for (const [key, repository] of Object.entries(extra)) {
        if (key in bound)
          throw new Error(`Repository '${key}' of ${contribution.name} is already defined by another contribution`);
        bound[key] = repository;
      }
    }
    return bound as unknown as Repositories;
  };
}

/** How `createStore` writes bookkeeping rows. */
export interface CreateStoreOptions {
  /** Batch invocation rows (see `InvocationBatchOptions`); omitted, each row commits when recorded. */
  invocationBatch?: InvocationBatchOptions;
  /**
   * On SQLite (one connection), calls' transactions opened with `begin` share
   * commits (`groupCommits`). Off by default (one caller at a time gains
   * nothing); the HTTP API, which serves concurrent requests, turns it on.
   */
  groupCommit?: boolean | { maxMembers?: number };
}

/** Wraps an open, migrated database as a Store with the contributions' repositories. */
export function createStore<Extra extends object = object>(
  db: Kysely<Database>,
  contributions: readonly StoreContribution[] = [],
  options: CreateStoreOptions = {},
): Store<Extra> {
  const bindHandle = bindRepositories(contributions);
  // Repositories bound to a transaction on SQLite may run their hot writes directly on its connection.
  const bind = (transaction: Kysely<Database>) => {
    markTransactionDirect(db, transaction);
    return bindHandle(transaction);
  };
  const invocations = options.invocationBatch ? batchInvocations(db, options.invocationBatch) : undefined;
  const bound = bindHandle(db) as Repositories<Extra>;
  // A session search by tool reads the invocations table: batched rows are written first.
  const sessions: typeof bound.sessions = invocations
    ? {
        ...bound.sessions,
        search: async (input) => {
          if (input.tool !== undefined) await invocations.flush();
          return bound.sessions.search(input);
        },
      }
    : bound.sessions;
  return {
    ...bound,
    sessions,
    ...(invocations ? { invocations } : {}),
    transaction: (work) => db.transaction().execute((transaction) => work(bind(transaction) as Repositories<Extra>)),
    snapshot: async (work) => {
      // Batched invocation rows are written first, as before any read of them through the store.
      await invocations?.flush();
      const builder = db.transaction().setAccessMode("read only");
      return (dialectOf(db) === "postgres" ? builder.setIsolationLevel("repeatable read") : builder).execute(
        (transaction) => work(bindHandle(transaction) as Repositories<Extra>),
      );
    },
    close: async () => {
      // Rows waiting are written (and any the database refuses reported), not left to a timer after the close.
      if (invocations) await closeInvocationBatch(invocations);
      await db.destroy();
    },
    begin:
      options.groupCommit !== undefined && options.groupCommit !== false && dialectOf(db) === "sqlite"
        ? (groupCommits(db, bind, {
            ...(options.groupCommit === true ? {} : options.groupCommit),
            // Batched invocation rows ride in the calls' COMMIT instead of paying one of their own.
            ...(invocations ? { passenger: invocations } : {}),
          }) as () => Promise<OpenTransaction<Extra>>)
        : async () => {
            const transaction = await db.startTransaction().execute();
            return {
              repositories: bind(transaction) as Repositories<Extra>,
              commit: () =>
                transaction
                  .commit()
                  .execute()
                  // A failed COMMIT leaves the transaction holding its connection: rolled back, it is released.
                  .catch(async (error: unknown) => {
                    await transaction
                      .rollback()
                      .execute()
                      .catch(() => undefined);
                    throw error;
                  }),
              rollback: () => transaction.rollback().execute(),
            };
          },
    contributors: new Set(contributions.map((contribution) => contribution.name)),
  };
}

export interface OpenStoreOptions {
  /** SQLite file path, or ":memory:" for tests. */
  path?: string;
  /** `postgres://...`: opens Postgres instead of SQLite (several replicas may share it). */
  url?: string;
  /** Either of the above, as read by `databaseTargetFromEnvironment`. */
  target?: DatabaseTarget;
  /** Postgres connections in this process's pool; default 10. */
  poolSize?: number;
  /** Postgres: a pooled connection failed outside a statement (the server restarted); for a log line, nothing to do. */
  onConnectionError?: (error: Error) => void;
  /** The modules whose tables and repositories the store carries (their migrations are applied). */
  modules?: readonly StoreContribution[];
  /** Batch invocation rows (services use `defaultInvocationBatch`); omitted, each row commits when recorded. */
  invocationBatch?: InvocationBatchOptions;
  /** Calls' transactions share commits on SQLite (see `CreateStoreOptions.groupCommit`). */
  groupCommit?: boolean | { maxMembers?: number };
  /** SQLite files: WAL checkpoints on a worker thread, not in a COMMIT on the event loop (see `startBackgroundCheckpoints`). */
  backgroundCheckpoints?: boolean | BackgroundCheckpointOptions;
}

function targetOf(options: OpenStoreOptions): DatabaseTarget {
  if (options.target !== undefined) return options.target;
  if (options.url !== undefined) return { dialect: "postgres", url: options.url };
  if (options.path !== undefined) return { dialect: "sqlite", path: options.path };
  throw new Error("openStore needs a path (SQLite), a url (Postgres) or a target");
}

/**
 * Opens SQLite at `path` (":memory:" for tests) or Postgres at `url`, applies
 * the base and the modules' migrations (on Postgres under an advisory lock, so
 * replicas may start together), and returns the store.
 */
export async function openStore<Extra extends object = object>(options: OpenStoreOptions): Promise<Store<Extra>> {
  const modules = options.modules ?? [];
  const target = targetOf(options);
  const db =
    target.dialect === "postgres"
      ? await openPostgresDatabase({
          url: target.url,
          ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
          ...(options.onConnectionError !== undefined ? { onConnectionError: options.onConnectionError } : {}),
        })
      : await openSqliteDatabase({
          path: target.path,
          ...(options.backgroundCheckpoints !== undefined
            ? { backgroundCheckpoints: options.backgroundCheckpoints }
            : {}),
        });
  try {
    await migrateToLatest(db, modules);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return createStore<Extra>(db, modules, {
    ...(options.invocationBatch ? { invocationBatch: options.invocationBatch } : {}),
    ...(options.groupCommit !== undefined ? { groupCommit: options.groupCommit } : {}),
  });
}

export type { StoreContribution } from "./store-contribution.ts";

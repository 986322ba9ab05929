import { DeliberateError } from "@deliberate/base";
import { Kysely, PostgresDialect } from "kysely";
import type pg from "pg";
import type { Database } from "./database.ts";
import { withWriteBatches } from "./postgres-write-batch.ts";
import { withStorableText } from "./storable-text.ts";

export interface OpenPostgresOptions {
  /** `postgres://user:password@host:port/database` (libpq parameters such as `?sslmode=require` and `?options=-c search_path=...` work). */
  url: string;
  /** Connections in this process's pool; default 10. */
  poolSize?: number;
  /**
   * Called when a pooled connection fails outside a statement — idle in the pool, or checked out between
   * statements (e.g. the server restarted: 57P01). The connection is dropped and the pool opens a new one
   * when next needed; the statement that uses it next fails with a transient fault (see `isTransientDatabaseFault`).
   */
  onConnectionError?: (error: Error) => void;
  /** How long a statement waits for a pooled connection (a server that does not answer); default 15 s. */
  connectionTimeoutMs?: number;
}

// Type OIDs whose values are handed over in the same shape as SQLite's.
const oids = {
  boolean: 16,
  int8: 20,
  json: 114,
  numeric: 1700,
  timestamp: 1114,
  timestamptz: 1184,
  jsonb: 3802,
} as const;

/** `pg`'s parameter serialiser, exported at run time though its types leave it out. */
type PgWithUtils = typeof pg & { utils: { prepareValue(value: unknown): unknown } };

/**
 * `pg`, loaded on first use: loading it makes Node 20 load its fetch implementation (its stream module
 * probes `new Response`), tens of milliseconds of every start on SQLite for nothing.
 */
let loadingPg: Promise<typeof pg> | undefined;
function loadPg(): Promise<typeof pg> {
  loadingPg ??= import("pg").then((module) => module.default);
  return loadingPg;
}

/**
 * Values come back in the shape the repositories expect on every dialect:
 * booleans as 1 or 0, timestamps as ISO-8601 strings, JSON as its text,
 * 64-bit counts and sums as numbers.
 */
function sameShapeAsSqlite(types: typeof pg.types): pg.CustomTypesConfig {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: pg's overloads
    getTypeParser: ((oid: number, format?: "text" | "binary"): any => {
      if (format === "binary") return types.getTypeParser(oid, "binary");
      switch (oid) {
        case oids.boolean:
          return (value: string) => (value === "t" ? 1 : 0);
        case oids.timestamptz: {
          const parse = types.getTypeParser(oid, "text") as (value: string) => Date;
          return (value: string) => parse(value).toISOString();
        }
        case oids.timestamp: {
          const parse = types.getTypeParser(oids.timestamptz, "text") as (value: string) => Date;
          return (value: string) => parse(`${value}Z`).toISOString();
        }
        case oids.json:
        case oids.jsonb:
          return (value: string) => value;
        case oids.int8:
        case oids.numeric:
          return (value: string) => Number(value);
        default:
          return types.getTypeParser(oid, "text");
      }
    }) as pg.CustomTypesConfig["getTypeParser"],
  };
}

/** Whether an error a query failed with leaves its connection unusable (the server ends it, or the socket is gone). */
function endsTheConnection(error: unknown): boolean {
  const severity = (error as { severity?: unknown } | null)?.severity;
  // Server errors carry a severity: FATAL and PANIC end the session. Errors without one are the client's own
  // (a closed socket, a connection timeout).
  return severity === undefined || severity === "FATAL" || severity === "PANIC";
}

/**
 * `pool` as kysely uses it, but a client whose query failed with an error that
 * ends the connection (57P01 when an administrator or a restart terminates it)
 * is released as broken, so the pool destroys it. Released as usual, it would
 * go back to the pool before `pg` has read the socket's close, and the next
 * caller's statement would fail on it ("Connection terminated unexpectedly").
 */
function droppingEndedClients(pool: pg.Pool): { connect(): Promise<pg.PoolClient>; end(): Promise<void> } {
  const ended = new WeakSet<pg.PoolClient>();
  const watched = new WeakSet<pg.PoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      if (!watched.has(client)) {
        watched.add(client);
        client.query = function (this: pg.PoolClient, ...args: unknown[]) {
          // The class's method, looked up at each call (as a call on the client would).
          const query = Object.getPrototypeOf(this).query as (...inner: unknown[]) => unknown;
          const result = query.apply(this, args);
          if (result instanceof Promise)
            result.catch((error: unknown) => {
              if (endsTheConnection(error)) ended.add(client);
            });
          return result;
        } as typeof client.query;
      }
      // pg-pool gives a client a new `release` at every checkout.
      const release = client.release;
      client.release = (error?: Error | boolean) =>
        release.call(client, error ?? (ended.has(client) ? new Error("the connection was ended") : undefined));
      return client;
    },
    end: () => pool.end(),
  };
}

/** The URL with its password replaced by `***`, for logs and errors. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(unparseable database URL)";
  }
}

/**
 * Opens a Postgres connection pool as a Kysely handle and checks that the
 * server answers. Migrations are `migrateToLatest`'s. U+0000 in text, which
 * Postgres `text` cannot hold, is stored as U+FFFD (`withStorableText`).
 */
export async function openPostgresDatabase(options: OpenPostgresOptions): Promise<Kysely<Database>> {
  const pgModule = await loadPg();
  const { Pool, types } = pgModule;
  const pool = new Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    types: sameShapeAsSqlite(types),
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 15_000,
  });
  const reportConnectionError = (error: Error) => options.onConnectionError?.(error);
  // An idle connection's failure reaches the pool's `error` event; a checked-out one's (between statements of
  // a transaction) reaches only the client's, and an unheard `error` event would end the process.
  pool.on("error", reportConnectionError);
  pool.on("connect", (client) => client.on("error", reportConnectionError));
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new DeliberateError({
      code: "STORAGE",
      message: `Cannot connect to Postgres at ${redactDatabaseUrl(options.url)}: ${(error as Error).message}`,
      hint: "Check DATABASE_URL (postgres://user:password@host:port/database) and that the server is running and reachable.",
      cause: error,
    });
  }
  // A plain transaction's writes reach the server with its COMMIT, in one round trip (postgres-write-batch.ts).
  const quoting = { prepareValue: (pgModule as PgWithUtils).utils.prepareValue, escapeLiteral: pgModule.escapeLiteral };
  return new Kysely<Database>({
    dialect: withWriteBatches(withStorableText(new PostgresDialect({ pool: droppingEndedClients(pool) })), quoting),
  });
}

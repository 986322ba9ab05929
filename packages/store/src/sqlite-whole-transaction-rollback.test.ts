import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type QueryExecutorProvider, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createCallScope } from "./call-scope.ts";
import { openStore } from "./index.ts";
import { invocationRow } from "./testing/invocation-row.ts";

/**
 * SQLite answers some failures (SQLITE_FULL, I/O errors, out of memory) of a statement without a journal of its
 * own (a one-row insert) by rolling back the whole transaction. The ROLLBACK that follows then has nothing to
 * undo: it must not replace the failure with "cannot rollback - no transaction is active" (a full disk is
 * retryable; that error is not, and a batch of invocation rows failing with it was dropped instead of kept).
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fullableStore(options: { onError?: (error: unknown, rows: number) => void } = {}) {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-whole-rollback-"));
  const store = await openStore({
    path: join(directory, "store.db"),
    groupCommit: true,
    invocationBatch: { maxRows: 1000, maxDelayMs: 60_000, ...(options.onError ? { onError: options.onError } : {}) },
  });
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  cleanups.push(() => store.close());
  await sql`create table big (id text primary key, body text not null)`.execute(store.db);
  /** The database may not grow past what it holds now (on `db`: the store, or a transaction holding it). */
  const fill = async (db: QueryExecutorProvider = store.db) => {
    const pages = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    await sql.raw(`pragma max_page_count = ${pages.rows[0]?.page_count}`).execute(db);
  };
  const makeRoom = () => sql`pragma max_page_count = 1073741823`.execute(store.db);
  return { store, fill, makeRoom };
}

const bigRow = (db: QueryExecutorProvider, id: string) =>
  sql`insert into big (id, body) values (${id}, ${"x".repeat(20_000)})`.execute(db);

describe("a statement that makes SQLite roll back the whole transaction (SQLITE_FULL)", () => {
  it("store.transaction fails with SQLite's error, and the store works afterwards", async () => {
    const { store, fill, makeRoom } = await fullableStore();
    await fill();
    await expect(store.transaction((repositories) => bigRow(repositories.db, "a"))).rejects.toMatchObject({
      code: "SQLITE_FULL",
    });
    await makeRoom();
    await store.transaction((repositories) => bigRow(repositories.db, "b"));
    const rows = await sql<{ id: string }>`select id from big`.execute(store.db);
    expect(rows.rows).toEqual([{ id: "b" }]);
  });

  it("a call's write fails with SQLite's error when its transaction is a store transaction of its own", async () => {
    const { store, fill } = await fullableStore();
    // As the MCP server opens it: no group commit, each call's transaction its own.
    const { begin: _groupBegin, ...withoutGroups } = store;
    const scope = createCallScope({
      ...withoutGroups,
      begin: async () => {
        const transaction = await store.db.startTransaction().execute();
        return {
          repositories: { ...store, db: transaction } as never,
          commit: () => transaction.commit().execute(),
          rollback: () => transaction.rollback().execute(),
        };
      },
    });
    await fill();
    await expect(scope.store.transaction((repositories) => bigRow(repositories.db, "a"))).rejects.toMatchObject({
      code: "SQLITE_FULL",
    });
    await scope.rollback();
  });

  it("with group commit, the call whose write failed gets SQLite's error; the group's other calls fail too", async () => {
    const { store, fill, makeRoom } = await fullableStore();
    await sql`create table small (id text primary key)`.execute(store.db);
    const earlier = createCallScope(store);
    const failing = createCallScope(store);
    await earlier.store.transaction((repositories) =>
      sql`insert into small (id) values ('earlier')`.execute(repositories.db),
    );
    const earlierCommitted = earlier.commit();
    await failing.store.transaction(async (repositories) => {
      // In the same group as `earlier` (its savepoint released, the group's COMMIT still to come).
      await fill(repositories.db);
    });
    await expect(failing.store.transaction((repositories) => bigRow(repositories.db, "a"))).rejects.toMatchObject({
      code: "SQLITE_FULL",
    });
    // As the engine ends a failed call (what the undo says is not the call's error).
    await failing.rollback().catch(() => undefined);
    // SQLite undid the whole group: the earlier call is not acknowledged.
    await expect(earlierCommitted).rejects.toThrow();
    await makeRoom();
    const rows = await sql<{ id: string }>`select id from small`.execute(store.db);
    expect(rows.rows).toEqual([]);
  });

  it("a call that catches its failed write and goes on to commit is refused: its earlier writes are gone", async () => {
    const { store, fill, makeRoom } = await fullableStore();
    await sql`create table small (id text primary key)`.execute(store.db);
    const call = createCallScope(store);
    await call.store.transaction(async (repositories) => {
      await sql`insert into small (id) values ('first')`.execute(repositories.db);
      await fill(repositories.db);
    });
    await expect(call.store.transaction((repositories) => bigRow(repositories.db, "a"))).rejects.toMatchObject({
      code: "SQLITE_FULL",
    });
    await expect(call.commit()).rejects.toThrow();
    await makeRoom();
    const rows = await sql<{ id: string }>`select id from small`.execute(store.db);
    expect(rows.rows).toEqual([]);
  });

  it("invocation rows written while a group holds the connection are kept, not dropped, when the disk is full", async () => {
    const dropped: unknown[] = [];
    const { store, fill, makeRoom } = await fullableStore({ onError: (error) => dropped.push(error) });
    const begin = store.begin?.bind(store);
    if (begin === undefined) throw new Error("a SQLite store has begin");
    const member = await begin();
    await store.invocations.record(invocationRow({ error_message: "x".repeat(20_000), success: false }));
    // The group holds the connection: the batch waits for it and is written in a transaction of its own.
    const flushed = store.invocations.flush();
    await fill(member.repositories.db);
    await member.commit();
    await flushed;
    expect(dropped).toEqual([]);
    await makeRoom();
    expect(await store.invocations.list()).toHaveLength(1);
  });
});

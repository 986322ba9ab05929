import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "./index.ts";
import { invocationRow } from "./testing/invocation-row.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * How many transactions committed into the WAL file: a frame whose header
 * gives the database size after it (bytes 4–7) ends a commit. Nothing
 * checkpoints in these tests (WAL well under SQLite's 1,000-page autocheckpoint).
 */
function commitsInWal(path: string): number {
  let wal: Buffer;
  try {
    wal = readFileSync(`${path}-wal`);
  } catch {
    return 0;
  }
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  let commits = 0;
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize)
    if (wal.readUInt32BE(offset + 4) !== 0) commits += 1;
  return commits;
}

/** A store as the HTTP API opens it (group commit, batched invocation rows) on a file, and another connection's view. */
async function serviceStore(options: { maxRows: number; onError?: (error: unknown, rows: number) => void }) {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-rows-in-group-"));
  const path = join(directory, "store.db");
  const store = await openStore({
    path,
    groupCommit: true,
    // Nothing is written by the batch's own timer during a test.
    invocationBatch: {
      maxRows: options.maxRows,
      maxDelayMs: 60_000,
      ...(options.onError ? { onError: options.onError } : {}),
    },
  });
  await sql`create table rg_parent (id text primary key)`.execute(store.db);
  await sql`create table rg_child (id text primary key, parent text not null references rg_parent (id))`.execute(
    store.db,
  );
  const other = new BetterSqlite3(path, { readonly: true });
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  cleanups.push(() => store.close());
  cleanups.push(() => void other.close());
  const count = (table: string) => (other.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  return {
    store,
    invocationsOnDisk: () => count("invocations"),
    rolledUpCalls: () =>
      Number((other.prepare("select coalesce(sum(calls), 0) as n from invocation_rollups").get() as { n: number }).n),
    parentsOnDisk: () => count("rg_parent"),
    commits: () => commitsInWal(path),
  };
}

function beginOf(store: Store) {
  const begin = store.begin?.bind(store);
  if (!begin) throw new Error("a SQLite store has begin");
  return begin;
}

const insertParent = (db: Kysely<unknown>, id: string) => sql`insert into rg_parent (id) values (${id})`.execute(db);

/** The event loop's next turn (a full batch's turn comes then). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("invocation rows ride in a group of calls' COMMIT (SQLite)", () => {
  it("a full batch whose turn comes while a group is open rides in that group's COMMIT: one COMMIT for both", async () => {
    const { store, invocationsOnDisk, rolledUpCalls, parentsOnDisk, commits } = await serviceStore({ maxRows: 3 });
    const before = commits();
    const member = await beginOf(store)();
    for (let index = 0; index < 3; index += 1) await store.invocations.record(invocationRow());
    await nextTurn();
    expect(invocationsOnDisk()).toBe(0);
    await insertParent(member.repositories.db as Kysely<unknown>, "a");
    await member.commit();
    expect(commits() - before).toBe(1);
    expect(parentsOnDisk()).toBe(1);
    expect(invocationsOnDisk()).toBe(3);
    expect(rolledUpCalls()).toBe(3);

    // No group open: a full batch is its own transaction on the next turn.
    for (let index = 0; index < 3; index += 1) await store.invocations.record(invocationRow());
    for (let turn = 0; turn < 50 && invocationsOnDisk() < 6; turn += 1) await nextTurn();
    expect(invocationsOnDisk()).toBe(6);
    expect(commits() - before).toBe(2);
  });

  it("rows not yet due (batch not full, oldest younger than maxDelayMs) stay for a bigger batch", async () => {
    const { store, invocationsOnDisk, parentsOnDisk } = await serviceStore({ maxRows: 1000 });
    for (let index = 0; index < 3; index += 1) await store.invocations.record(invocationRow());
    const member = await beginOf(store)();
    await insertParent(member.repositories.db as Kysely<unknown>, "a");
    await member.commit();
    expect(parentsOnDisk()).toBe(1);
    expect(invocationsOnDisk()).toBe(0);
    // A read through the repository writes them first.
    expect(await store.invocations.list()).toHaveLength(3);
  });

  it("rows that rode in a group whose COMMIT failed are not lost: they are written on their own afterwards", async () => {
    const { store, invocationsOnDisk, parentsOnDisk } = await serviceStore({ maxRows: 3 });
    // Foreign keys checked at COMMIT: a dangling child fails the group's COMMIT.
    await sql`pragma defer_foreign_keys = on`.execute(store.db);
    const member = await beginOf(store)();
    for (let index = 0; index < 3; index += 1) await store.invocations.record(invocationRow());
    await nextTurn();
    await sql`insert into rg_child (id, parent) values ('orphan', 'missing')`.execute(member.repositories.db);
    await expect(member.commit()).rejects.toThrow(/FOREIGN KEY/);
    expect(parentsOnDisk()).toBe(0);
    // A read through the repository waits for them (the batch writes them again at once).
    expect(await store.invocations.list()).toHaveLength(3);
    expect(invocationsOnDisk()).toBe(3);
  });

  it("a batch that cannot be written is reported and dropped without undoing the group's calls", async () => {
    const dropped: number[] = [];
    const { store, invocationsOnDisk, parentsOnDisk } = await serviceStore({
      maxRows: 2,
      onError: (_error, rows) => dropped.push(rows),
    });
    const member = await beginOf(store)();
    // `tool` is NOT NULL: the batch's insert fails inside the group's transaction.
    await store.invocations.record(invocationRow({ tool: null as unknown as string }));
    await store.invocations.record(invocationRow());
    await nextTurn();
    await insertParent(member.repositories.db as Kysely<unknown>, "kept");
    await member.commit();
    expect(parentsOnDisk()).toBe(1);
    expect(dropped).toEqual([2]);
    expect(invocationsOnDisk()).toBe(0);
    // The next rows ride normally.
    const next = await beginOf(store)();
    await store.invocations.record(invocationRow());
    await store.invocations.record(invocationRow());
    await nextTurn();
    await insertParent(next.repositories.db as Kysely<unknown>, "next");
    await next.commit();
    expect(invocationsOnDisk()).toBe(2);
  });

  it("rows whose insert fills the database (SQLITE_FULL, which rolls back the whole transaction) are kept, and the calls get that error", async () => {
    const dropped: unknown[] = [];
    const { store, invocationsOnDisk, parentsOnDisk } = await serviceStore({
      maxRows: 1,
      onError: (error) => dropped.push(error),
    });
    const member = await beginOf(store)();
    const db = member.repositories.db as Kysely<unknown>;
    await insertParent(db, "a");
    // The database may not grow past what it holds now: the rows' pages do not fit, the call's already did.
    const pages = await sql<{ page_count: number }>`pragma page_count`.execute(db);
    await sql.raw(`pragma max_page_count = ${pages.rows[0]?.page_count}`).execute(db);
    // One row: its insert has no statement journal, so SQLite's SQLITE_FULL rolls back the whole transaction.
    await store.invocations.record(invocationRow({ error_message: "x".repeat(20_000), success: false }));
    await nextTurn();
    // SQLite undid the calls' writes with the rows' statement: they are refused with the database's own error
    // (a full disk: retryable), not an unrelated one, and nothing of theirs is on disk.
    await expect(member.commit()).rejects.toMatchObject({ code: "SQLITE_FULL" });
    expect(parentsOnDisk()).toBe(0);
    // The rows were not dropped: a full disk is held and written again once there is room.
    expect(dropped).toEqual([]);
    await sql`pragma max_page_count = 1073741823`.execute(store.db);
    expect(await store.invocations.list()).toHaveLength(1);
    expect(invocationsOnDisk()).toBe(1);
    // The next group works as usual.
    const next = await beginOf(store)();
    await insertParent(next.repositories.db as Kysely<unknown>, "b");
    await next.commit();
    expect(parentsOnDisk()).toBe(1);
  });

  it("rows still land when the group's only member rolled back its own writes", async () => {
    const { store, invocationsOnDisk, parentsOnDisk } = await serviceStore({ maxRows: 1 });
    const member = await beginOf(store)();
    await store.invocations.record(invocationRow());
    await nextTurn();
    await insertParent(member.repositories.db as Kysely<unknown>, "undone");
    await member.rollback();
    await store.invocations.flush();
    expect(invocationsOnDisk()).toBe(1);
    expect(parentsOnDisk()).toBe(0);
  });
});

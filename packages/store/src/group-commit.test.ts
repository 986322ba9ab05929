import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { groupCommits } from "./group-commit.ts";
import { createCallScope, openStore, type Store } from "./index.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The store's database, counting the transactions started through it (a group's BEGIN each). */
function countingTransactions<Database extends object>(db: Database) {
  const transactions = { started: 0 };
  const counting = new Proxy(db, {
    get(target, key) {
      if (key === "startTransaction") transactions.started += 1;
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { db: counting, transactions };
}

/** A store on a SQLite file, a second connection to the same file (another process's view), and the statements the store ran. */
async function fileStore(options: { groupCommit?: boolean | { maxMembers?: number } } = {}) {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-group-commit-"));
  const path = join(directory, "store.db");
  const store = await openStore({ path, groupCommit: options.groupCommit ?? true });
  await sql`create table gc_parent (id text primary key)`.execute(store.db);
  await sql`create table gc_child (id text primary key, parent text not null references gc_parent (id))`.execute(
    store.db,
  );
  const other = new BetterSqlite3(path, { readonly: true });
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  cleanups.push(() => store.close());
  cleanups.push(() => void other.close());
  const visible = (id: string) =>
    other.prepare("select count(*) as n from gc_parent where id = ?").get(id) as { n: number };
  return {
    store,
    visible: (id: string) => visible(id).n === 1,
    count: () => (other.prepare("select count(*) as n from gc_parent").get() as { n: number }).n,
  };
}

const insertParent = (db: Kysely<unknown>, id: string) => sql`insert into gc_parent (id) values (${id})`.execute(db);

/** One call as the engine runs it: a call scope, a write, then commit (or rollback when `fail`). */
async function call(
  store: Store,
  id: string,
  options: { fail?: boolean; onCommitted?: () => void } = {},
): Promise<void> {
  const scope = createCallScope(store);
  await scope.store.transaction(async (repositories) => {
    await insertParent(repositories.db as Kysely<unknown>, id);
  });
  if (options.fail) {
    await scope.rollback();
    return;
  }
  await scope.commit();
  options.onCommitted?.();
}

describe("group commit (SQLite)", () => {
  it("commits concurrent calls together; each commit resolves only once its row is on disk for another connection", async () => {
    const { store, visible, count } = await fileStore();
    const seenAtCommit: boolean[] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        call(store, `p${index}`, { onCommitted: () => seenAtCommit.push(visible(`p${index}`)) }),
      ),
    );
    expect(seenAtCommit).toHaveLength(40);
    expect(seenAtCommit.every(Boolean)).toBe(true);
    expect(count()).toBe(40);
  });

  it("shares commits: calls that arrive together make one transaction, and none is acknowledged before the last one joined", async () => {
    const { store, count } = await fileStore();
    const { db: counting, transactions } = countingTransactions(store.db);
    const begin = groupCommits(counting, (transaction) => transaction, { maxMembers: 8 });
    const acknowledged: number[] = [];
    let pendingAtLast: number[] | undefined;
    await Promise.all(
      Array.from({ length: 8 }, async (_, index) => {
        const member = await begin();
        await insertParent(member.repositories as Kysely<unknown>, `q${index}`);
        if (index === 7) pendingAtLast = [...acknowledged];
        await member.commit();
        acknowledged.push(index);
      }),
    );
    expect(pendingAtLast).toEqual([]);
    expect(acknowledged).toHaveLength(8);
    expect(transactions.started).toBe(1);
    expect(count()).toBe(8);
    // A ninth call past the limit starts a new group.
    await Promise.all(
      Array.from({ length: 9 }, async (_, index) => {
        const member = await begin();
        await insertParent(member.repositories as Kysely<unknown>, `r${index}`);
        await member.commit();
      }),
    );
    expect(transactions.started).toBe(3);
  });

  it("groups up to 64 calls by default (50 connections' calls share one COMMIT); the 65th starts a new group", async () => {
    const { store, count } = await fileStore();
    const { db: counting, transactions } = countingTransactions(store.db);
    const begin = groupCommits(counting, (transaction) => transaction);
    await Promise.all(
      Array.from({ length: 65 }, async (_, index) => {
        const member = await begin();
        await insertParent(member.repositories as Kysely<unknown>, `d${index}`);
        await member.commit();
      }),
    );
    expect(transactions.started).toBe(2);
    expect(count()).toBe(65);
  });

  it("keeps a group open to the end of the event loop's turn: calls that each commit before the next begins (requests read in one poll) share a COMMIT", async () => {
    const { store, visible } = await fileStore();
    const { db: counting, transactions } = countingTransactions(store.db);
    const begin = groupCommits(counting, (transaction) => transaction);
    const order: string[] = [];
    // One after the other within one turn: each call begins only once the one before has asked to commit.
    const calls: Array<Promise<void>> = [];
    for (let index = 0; index < 4; index += 1) {
      const member = await begin();
      await insertParent(member.repositories as Kysely<unknown>, `turn${index}`);
      calls.push(member.commit().then(() => void order.push(`acknowledged ${index}`)));
      // Not acknowledged, and not visible to another connection, before the group commits.
      expect(visible(`turn${index}`)).toBe(false);
      // The next request's callback runs once this one's promise work is done (node drains microtasks between
      // callbacks): enough microtask turns for a COMMIT issued at once to have run, without ending the turn.
      for (let hop = 0; hop < 200; hop += 1) await null;
    }
    await Promise.all(calls);
    expect(transactions.started).toBe(1);
    expect(order).toEqual(["acknowledged 0", "acknowledged 1", "acknowledged 2", "acknowledged 3"]);
    for (let index = 0; index < 4; index += 1) expect(visible(`turn${index}`)).toBe(true);
    // A call in a later turn starts a new group.
    await new Promise((resolve) => setImmediate(resolve));
    const later = await begin();
    await insertParent(later.repositories as Kysely<unknown>, "later");
    await later.commit();
    expect(transactions.started).toBe(2);
  });

  it("undoes only the failing call's writes; the others of its group land", async () => {
    const { store, visible } = await fileStore();
    await Promise.all([call(store, "a"), call(store, "b", { fail: true }), call(store, "c")]);
    expect([visible("a"), visible("b"), visible("c")]).toEqual([true, false, true]);
  });

  it("when the shared COMMIT fails, every member of the group is told and nothing of theirs landed", async () => {
    const { store, visible } = await fileStore();
    // Foreign keys checked at COMMIT: a dangling child fails the commit of the whole group.
    await sql`pragma defer_foreign_keys = on`.execute(store.db);
    const begin = store.begin?.bind(store);
    if (!begin) throw new Error("a SQLite store has begin");
    const first = await begin();
    const second = begin();
    await insertParent(first.repositories.db as Kysely<unknown>, "good");
    const firstCommit = first.commit();
    const member = await second;
    await sql`insert into gc_child (id, parent) values ('orphan', 'missing')`.execute(member.repositories.db);
    const results = await Promise.allSettled([firstCommit, member.commit()]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(visible("good")).toBe(false);
    // The next group starts clean.
    await call(store, "after");
    expect(visible("after")).toBe(true);
  });

  it("without group commit (the default), each call commits on its own", async () => {
    const { store, count } = await fileStore({ groupCommit: false });
    let transactions = 0;
    const begin = store.begin?.bind(store);
    if (!begin) throw new Error("a SQLite store has begin");
    const counted = {
      ...store,
      begin: () => {
        transactions += 1;
        return begin();
      },
    } as Store;
    await Promise.all([call(counted, "x"), call(counted, "y", { fail: true }), call(counted, "z")]);
    expect(count()).toBe(2);
    // Each call its own transaction, one after the other: a second transaction on the one connection waits for the first.
    expect(transactions).toBe(3);
    const plain = await openStore({ path: ":memory:" });
    cleanups.push(() => plain.close());
    const first = await plain.begin?.();
    let secondOpened = false;
    const second = plain.begin?.().then((opened) => {
      secondOpened = true;
      return opened;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(secondOpened).toBe(false);
    await first?.commit();
    await (await second)?.commit();
    expect(secondOpened).toBe(true);
  });
});

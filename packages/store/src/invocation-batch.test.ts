import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { openStore, type Store } from "./index.ts";
import { withStatementCache } from "./statement-cache.ts";
import type { NewInvocation } from "./repositories/invocation.repository.ts";
import { invocationRow } from "./testing/invocation-row.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close().catch(() => undefined)));
});

async function batchedStore(
  options: { maxRows?: number; maxDelayMs?: number; onError?: (error: unknown, rows: number) => void } = {},
): Promise<Store> {
  const store = await openStore({
    path: ":memory:",
    invocationBatch: {
      maxRows: options.maxRows ?? 4,
      maxDelayMs: options.maxDelayMs ?? 60_000,
      ...(options.onError ? { onError: options.onError } : {}),
    },
  });
  stores.push(store);
  return store;
}

function invocation(fields: Partial<NewInvocation> = {}): NewInvocation {
  return invocationRow({ created_at: "2026-11-22T10:00:00.000Z", ...fields });
}

/** Rows actually in the table (not through the repository, which would flush first). */
async function written(store: Store): Promise<number> {
  const result = await sql<{ count: number }>`select count(*) as count from invocations`.execute(store.db);
  return Number(result.rows[0]?.count);
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("batched invocation rows", () => {
  it("holds rows until the batch is full, then writes them on the next turn", async () => {
    const store = await batchedStore({ maxRows: 4 });
    for (let index = 0; index < 3; index += 1) await store.invocations.record(invocation());
    await nextTurn();
    expect(await written(store)).toBe(0);
    await store.invocations.record(invocation());
    await nextTurn();
    await nextTurn();
    expect(await written(store)).toBe(4);
  });

  it("writes a partial batch after maxDelayMs", async () => {
    const store = await batchedStore({ maxRows: 100, maxDelayMs: 5 });
    await store.invocations.record(invocation());
    // No read through the repository (it would flush): the row must arrive by the timer alone.
    for (const deadline = Date.now() + 30_000; (await written(store)) === 0 && Date.now() < deadline; )
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await written(store)).toBe(1);
  });

  it("reads through the repository see every recorded row, and close writes what is left", async () => {
    const store = await batchedStore({ maxRows: 100 });
    await store.invocations.record(invocation({ tool: "reasoning_tree" }));
    await store.invocations.record(invocation({ tool: "reasoning_tree", latency_ms: 3 }));
    expect((await store.invocations.list()).map((row) => row.tool)).toEqual(["reasoning_tree", "reasoning_tree"]);
    expect((await store.invocations.aggregate())[0]?.calls).toBe(2);
    expect(await store.invocations.latencyAtRanks({ tool: "reasoning_tree" }, [2])).toEqual([3]);

    const directory = mkdtempSync(join(tmpdir(), "deliberate-batch-"));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, "batch.db");
    const file = await openStore({ path, invocationBatch: { maxRows: 100, maxDelayMs: 60_000 } });
    await file.invocations.record(invocation());
    await file.close();
    const reopened = await openStore({ path });
    stores.push(reopened);
    expect(await written(reopened)).toBe(1);
  });

  it("a session search by tool sees the rows still batched", async () => {
    const store = await batchedStore({ maxRows: 100 });
    await store.sessions.create({ id: "s1", mode: "linear", now: "2026-11-22T10:00:00.000Z" });
    await store.invocations.record(invocation({ tool: "reasoning_decision", session_id: "s1" }));
    expect(
      (await store.sessions.search({ limit: 10, offset: 0, tool: "reasoning_decision" })).map((session) => session.id),
    ).toEqual(["s1"]);
  });

  it("reports a batch it cannot write, with its row count", async () => {
    const failures: number[] = [];
    const store = await batchedStore({ maxRows: 2, onError: (_error, rows) => failures.push(rows) });
    const duplicate = invocation();
    await store.invocations.record(duplicate);
    await store.invocations.record({ ...duplicate }); // same id: the batch violates the primary key
    await store.invocations.list();
    expect(failures).toEqual([2]);
    expect(await written(store)).toBe(0);
  });
});

describe("withStatementCache", () => {
  it("reuses a prepared statement per SQL text, but never one that is still iterating", () => {
    const connection = new BetterSqlite3(":memory:");
    const database = withStatementCache(connection, 2);
    connection.exec("create table numbers (value integer); insert into numbers values (1), (2), (3);");
    const first = database.prepare("select value from numbers order by value");
    expect(database.prepare("select value from numbers order by value")).toBe(first);
    const iterating = first.iterate([]);
    iterating.next();
    const second = database.prepare("select value from numbers order by value");
    expect(second).not.toBe(first);
    expect(second.all([])).toEqual([{ value: 1 }, { value: 2 }, { value: 3 }]);
    iterating.return?.();
    // Least recently used first out: a third text evicts the oldest.
    database.prepare("select 1");
    database.prepare("select 2");
    expect(database.prepare("select value from numbers order by value")).not.toBe(first);
    database.close();
  });
});

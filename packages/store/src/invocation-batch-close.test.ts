import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { migrateToLatest } from "./migrator.ts";
import { openSqliteDatabase } from "./open-database.ts";
import { createStore } from "./store.ts";
import { invocationRow } from "./testing/invocation-row.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A batching store on a file whose write lock waits `busyTimeoutMs` at most, and how its dropped rows are reported. */
async function batchingStore() {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-batch-close-"));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  const path = join(directory, "store.db");
  const db = await openSqliteDatabase({ path, busyTimeoutMs: 100 });
  await migrateToLatest(db, []);
  const reported: Array<{ error: unknown; rows: number }> = [];
  const store = createStore(db, [], {
    invocationBatch: { maxRows: 1000, maxDelayMs: 60_000, onError: (error, rows) => reported.push({ error, rows }) },
  });
  const rowsOnDisk = () => {
    const reader = new BetterSqlite3(path, { readonly: true });
    try {
      return (reader.prepare("select count(*) as n from invocations").get() as { n: number }).n;
    } finally {
      reader.close();
    }
  };
  return { store, path, reported, rowsOnDisk };
}

describe("closing a store with invocation rows waiting", () => {
  it("writes them", async () => {
    const { store, rowsOnDisk, reported } = await batchingStore();
    await store.invocations.record(invocationRow());
    await store.invocations.record(invocationRow());
    await store.close();
    expect(rowsOnDisk()).toBe(2);
    expect(reported).toEqual([]);
  });

  it("reports the rows it could not write (the database locked past busy_timeout) instead of losing them unsaid", async () => {
    const { store, path, reported } = await batchingStore();
    const other = new BetterSqlite3(path);
    cleanups.push(() => void other.close());
    other.exec("begin immediate");
    await store.invocations.record(invocationRow());
    await store.close();
    expect(reported).toEqual([
      { error: expect.objectContaining({ code: expect.stringMatching(/^SQLITE_BUSY/) }), rows: 1 },
    ]);
    other.exec("rollback");
  });

  it("writes rows recorded while its last batch was being written (calls finishing as the service stops)", async () => {
    const { store, path, rowsOnDisk, reported } = await batchingStore();
    const other = new BetterSqlite3(path);
    cleanups.push(() => void other.close());
    // The first batch waits for the write lock: a row recorded meanwhile comes after it.
    other.exec("begin immediate");
    await store.invocations.record(invocationRow());
    const closing = store.close();
    await store.invocations.record(invocationRow());
    other.exec("rollback");
    await closing;
    expect(reported).toEqual([]);
    expect(rowsOnDisk()).toBe(2);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isTransientDatabaseFault, toDeliberateError } from "@deliberate/base";
import BetterSqlite3 from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { checkDatabase } from "./index.ts";
import { batchInvocations } from "./invocation-batch.ts";
import { openSqliteDatabase } from "./open-database.ts";
import type { Database } from "./database.ts";
import { migrateToLatest } from "./migrator.ts";
import { invocationRow } from "./testing/invocation-row.ts";

// SQLite's busy and locked errors pass once the other writer lets go: they are transient faults (STORAGE,
// retryable), and batched rows wait for the lock instead of being dropped.

const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A migrated SQLite file with a short busy timeout, and a second connection that can hold its write lock. */
async function lockedFile(): Promise<{ db: Kysely<Database>; lock: () => void; unlock: () => void }> {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-busy-"));
  const path = join(directory, "busy.db");
  const db = await openSqliteDatabase({ path, busyTimeoutMs: 20 });
  await migrateToLatest(db, []);
  const other = new BetterSqlite3(path);
  other.pragma("busy_timeout = 20");
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  cleanups.push(() => db.destroy());
  cleanups.push(() => {
    other.close();
  });
  return {
    db,
    lock: () => void other.exec("begin exclusive"),
    unlock: () => void other.exec("commit"),
  };
}

describe("SQLite busy and locked databases", () => {
  it("are transient faults: STORAGE, retryable", async () => {
    const { db, lock, unlock } = await lockedFile();
    lock();
    const failure = await sql`insert into sessions (id, created_at, updated_at) values ('s1', 'now', 'now')`
      .execute(db)
      .catch((error: unknown) => error);
    expect((failure as { code?: string }).code).toMatch(/^SQLITE_BUSY/);
    expect(isTransientDatabaseFault(failure)).toBe(true);
    expect(toDeliberateError(failure)).toMatchObject({ code: "STORAGE", retryable: true });
    // Readers are not blocked by a writer (WAL): the database is still ready.
    await expect(checkDatabase(db, 2000)).resolves.toBeUndefined();
    unlock();
  });

  it("keep batched invocation rows until the lock is gone, then write them", async () => {
    const { db, lock, unlock } = await lockedFile();
    const dropped: number[] = [];
    const batch = batchInvocations(db, {
      maxRows: 2,
      maxDelayMs: 5,
      retryMs: 20,
      onError: (_error, rows) => dropped.push(rows),
    });
    lock();
    for (let index = 0; index < 3; index += 1) {
      await batch.record(invocationRow());
    }
    await batch.flush();
    unlock();
    const count = async () =>
      Number((await sql<{ count: number }>`select count(*) as count from invocations`.execute(db)).rows[0]?.count);
    for (let waited = 0; (await count()) < 3 && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await count()).toBe(3);
    expect(dropped).toEqual([]);
  });
});

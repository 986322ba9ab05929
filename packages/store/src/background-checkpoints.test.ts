import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type Store } from "./index.ts";

const now = "2026-11-23T10:00:00.000Z";
const directories: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function databasePath(): string {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-checkpoints-"));
  directories.push(directory);
  return join(directory, "store.db");
}

async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A few hundred kilobytes of committed rows, one transaction per session. */
async function write(store: Store, prefix: string, sessions: number): Promise<void> {
  for (let index = 0; index < sessions; index += 1) {
    await store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: `${prefix}${index}`, mode: "linear", now });
      await repositories.thoughts.append({
        id: `${prefix}t${index}`,
        session_id: `${prefix}${index}`,
        mode: "linear",
        content: "x".repeat(2000),
        created_at: now,
      });
    });
  }
}

describe("background WAL checkpoints (SQLite file)", () => {
  it("copies committed pages into the database file from a worker, and the data survives closing and reopening", async () => {
    const path = databasePath();
    const errors: Error[] = [];
    const store = await openStore({
      path,
      backgroundCheckpoints: { intervalMs: 20, onError: (error) => errors.push(error) },
    });
    stores.push(store);
    const before = statSync(path).size;
    await write(store, "s", 200);
    // Nothing on the serving connection checkpoints (wal_autocheckpoint = 0), so the file grows only by the worker's checkpoints.
    await until(() => statSync(path).size > before + 200 * 2000);
    expect(errors).toEqual([]);
    await stores.splice(0)[0]?.close();
    // The last connection closed checkpointed and removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = new BetterSqlite3(path, { readonly: true });
    try {
      expect(reopened.prepare("select count(*) as count from sessions").get()).toEqual({ count: 200 });
      expect(reopened.prepare("select count(*) as count from thoughts").get()).toEqual({ count: 200 });
    } finally {
      reopened.close();
    }
  });

  it("keeps the WAL bounded under steady writes: each round's pages reach the file and the WAL is reused", async () => {
    const path = databasePath();
    const store = await openStore({ path, backgroundCheckpoints: { intervalMs: 10, restartBytes: 64 * 1024 } });
    stores.push(store);
    let largest = 0;
    for (let round = 0; round < 40; round += 1) {
      const before = statSync(path).size;
      await write(store, `r${round}_`, 25);
      // The worker's checkpoint of this round (the file grows by its pages; past the limit it also starts the WAL
      // over). Waited for: on a loaded machine the worker's thread can lag the writer by many rounds, and how far
      // the WAL then grows depends on the scheduler, not on the code under test.
      await until(() => statSync(path).size > before);
      largest = Math.max(largest, statSync(`${path}-wal`).size);
    }
    // About 2 MB committed in all; without a restart the WAL would hold every frame of it.
    const total = statSync(path).size;
    expect(total).toBeGreaterThan(1_500_000);
    expect(largest).toBeLessThan(total);
    expect(await store.sessions.find("r39_24")).toMatchObject({ id: "r39_24" });
  });

  it("is not started for an in-memory database", async () => {
    const store = await openStore({ path: ":memory:", backgroundCheckpoints: true });
    stores.push(store);
    await write(store, "m", 3);
    expect(await store.sessions.find("m2")).toMatchObject({ id: "m2" });
  });
});

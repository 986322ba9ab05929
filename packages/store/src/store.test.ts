import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeliberateError } from "@deliberate/base";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { runSqliteTransactionNow } from "./direct-sqlite.ts";
import { openStore, type Store } from "./index.ts";
import { testDialects, useTestStores } from "./testing/index.ts";
import { invocationRow } from "./testing/invocation-row.ts";

const now = "2026-11-22T10:00:00.000Z";
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

describe.each(testDialects)("store on %s", (dialect) => {
  const memoryStore = useTestStores(dialect);

  it("appends thoughts in order and returns the recent active ones oldest first", async () => {
    const store = await memoryStore();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    for (let index = 0; index < 5; index += 1) {
      await store.thoughts.append({
        id: `t${index}`,
        session_id: "s1",
        mode: "linear",
        content: `thought ${index}`,
        created_at: now,
      });
    }
    const recent = await store.thoughts.recent("s1", 3);
    expect(recent.map((thought) => thought.id)).toEqual(["t2", "t3", "t4"]);
    expect(await store.thoughts.count("s1")).toBe(5);
  });

  it("supersedes thoughts without deleting them and can reactivate them", async () => {
    const store = await memoryStore();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    for (const id of ["a", "b", "c"]) {
      await store.thoughts.append({ id, session_id: "s1", mode: "linear", content: id, created_at: now });
    }
    expect(await store.thoughts.supersedeExcept("s1", ["a"])).toBe(2);
    expect((await store.thoughts.listBySession("s1", { activeOnly: true })).map((thought) => thought.id)).toEqual([
      "a",
    ]);
    expect(await store.thoughts.count("s1")).toBe(3);
    await store.thoughts.reactivate(["b"]);
    expect(await store.thoughts.count("s1", { activeOnly: true })).toBe(2);
  });

  it("rolls a failed transaction back completely", async () => {
    const store = await memoryStore();
    await expect(
      store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: "s1", mode: "linear", now });
        await repositories.thoughts.append({
          id: "t1",
          session_id: "s1",
          mode: "linear",
          content: "x",
          created_at: now,
        });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.sessions.find("s1")).toBeUndefined();
    expect(await store.thoughts.find("t1")).toBeUndefined();
  });

  it("refuses a thought for a session that does not exist (foreign keys on)", async () => {
    const store = await memoryStore();
    await expect(
      store.thoughts.append({ id: "t1", session_id: "missing", mode: "linear", content: "x", created_at: now }),
    ).rejects.toThrow();
  });

  it("reports missing rows as NOT_FOUND naming the field", async () => {
    const store = await memoryStore();
    const error = await store.sessions.get("nope").catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("NOT_FOUND");
    expect(DeliberateError.isInstance(error) && error.issues[0]?.field).toBe("session_id");
  });

  it("searches sessions by kind, tool and text (wildcards literal), newest first, paginated", async () => {
    const store = await memoryStore();
    await store.sessions.create({ id: "s_old", mode: "linear", now: "2026-11-22T10:00:00.000Z" });
    await store.sessions.create({ id: "s_graph", mode: "graph", now: "2026-11-22T10:01:00.000Z" });
    await store.sessions.create({ id: "s_new", mode: "linear", now: "2026-11-22T10:02:00.000Z" });
    await store.thoughts.append({
      id: "t1",
      session_id: "s_old",
      mode: "linear",
      content: "Cache 100% of READS",
      created_at: now,
    });
    await store.invocations.record(
      invocationRow({ id: "i1", tool: "reasoning_graph", operation: "init", session_id: "s_graph", created_at: now }),
    );
    const ids = async (query: Partial<Parameters<Store["sessions"]["search"]>[0]>) =>
      (await store.sessions.search({ limit: 10, offset: 0, ...query })).map((session) => session.id);
    expect(await ids({})).toEqual(["s_new", "s_graph", "s_old"]);
    expect(await ids({ kind: "linear" })).toEqual(["s_new", "s_old"]);
    expect(await ids({ tool: "reasoning_graph" })).toEqual(["s_graph"]);
    expect(await ids({ search: "cache 100%" })).toEqual(["s_old"]);
    expect(await ids({ search: "100_" })).toEqual([]);
    expect(await ids({ search: "S_G" })).toEqual(["s_graph"]);
    expect(await ids({ limit: 1, offset: 1 })).toEqual(["s_graph"]);
  });

  it("filters invocations and maps success to a boolean", async () => {
    const store = await memoryStore();
    const base = {
      operation: null,
      session_id: null,
      provider: "testing",
      model: "m",
      input_tokens: 1,
      output_tokens: 2,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      model_calls: 1,
      latency_ms: 5,
      error_message: null,
      quality: null,
    };
    await store.invocations.record({
      ...base,
      id: "i1",
      tool: "reasoning_linear",
      success: true,
      error_code: null,
      created_at: "2026-11-22T10:00:00.000Z",
    });
    await store.invocations.record({
      ...base,
      id: "i2",
      tool: "reasoning_tree",
      success: false,
      error_code: "INVALID_INPUT",
      created_at: "2026-11-22T10:00:01.000Z",
    });
    const failed = await store.invocations.list({ success: false });
    expect(failed.map((row) => [row.id, row.success])).toEqual([["i2", false]]);
    expect((await store.invocations.list({ tool: "reasoning_linear" }))[0]?.success).toBe(true);
  });

  it("records the rounds a call took (1 unless given)", async () => {
    const store = await memoryStore();
    const base = {
      operation: null,
      session_id: null,
      provider: "host",
      model: "host",
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      model_calls: 3,
      latency_ms: 5,
      error_message: null,
      quality: null,
      tool: "reasoning_divergent",
      success: true,
      error_code: null,
    };
    await store.invocations.record({ ...base, id: "i1", rounds: 3, created_at: "2026-11-22T10:00:00.000Z" });
    await store.invocations.record({ ...base, id: "i2", created_at: "2026-11-22T10:00:01.000Z" });
    const rows = await store.invocations.list();
    expect(rows.map((row) => [row.id, row.rounds])).toEqual([
      ["i2", 1],
      ["i1", 3],
    ]);
  });
});

describe("store on a SQLite file", () => {
  it("opens a file database in WAL mode that a second connection can read", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deliberate-store-")), "nested", "deliberate.db");
    const writer = await openStore({ path });
    stores.push(writer);
    await writer.sessions.create({ id: "s1", mode: "linear", now });
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(writer.db);
    expect(mode.rows[0]?.journal_mode).toBe("wal");
    const reader = await openStore({ path });
    stores.push(reader);
    expect((await reader.sessions.get("s1")).mode).toBe("linear");
  });

  it("keeps write transactions' statement journals in memory, and reads' sorts on disk (bounded memory)", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deliberate-store-")), "deliberate.db");
    const store = await openStore({ path });
    stores.push(store);
    const tempStoreOn = async (db: typeof store.db) =>
      (await sql<{ temp_store: number }>`pragma temp_store`.execute(db)).rows[0]?.temp_store;
    // 0 is the build's default, a file: a read's GROUP BY or ORDER BY over more rows than the page cache holds
    // spills to a temporary file. With MEMORY (2) SQLite's sorter never spills: a reasoning_metrics summary with
    // `since` over 2.1 million invocation rows raised the service's peak RSS by 190 MB instead of 33.
    expect(await tempStoreOn(store.db)).toBe(0);
    // A write transaction (a group commit): 2, so its statement journal is no temporary file created, written
    // and unlinked each time. A read-only snapshot keeps the default.
    expect(await store.db.transaction().execute((transaction) => tempStoreOn(transaction))).toBe(2);
    expect(await tempStoreOn(store.db)).toBe(0);
    await expect(
      store.db.transaction().execute(async () => {
        throw new Error("the transaction fails");
      }),
    ).rejects.toThrow("the transaction fails");
    expect(await tempStoreOn(store.db)).toBe(0);
    expect(
      await store.db
        .transaction()
        .setAccessMode("read only")
        .execute((transaction) => tempStoreOn(transaction)),
    ).toBe(0);
    // An invocation batch's synchronous transaction, and after it, whether it commits or fails.
    let inBatch: unknown;
    expect(runSqliteTransactionNow(store.db, (sqlite) => (inBatch = sqlite.get("pragma temp_store", [])))).toBe(true);
    expect(inBatch).toEqual({ temp_store: 2 });
    expect(await tempStoreOn(store.db)).toBe(0);
    expect(() =>
      runSqliteTransactionNow(store.db, () => {
        throw new Error("the batch fails");
      }),
    ).toThrow("the batch fails");
    expect(await tempStoreOn(store.db)).toBe(0);
    await store.invocations.recordMany([
      invocationRow({ id: "i1", created_at: now }),
      invocationRow({ id: "i2", created_at: now }),
    ]);
    expect(await tempStoreOn(store.db)).toBe(0);
    expect((await store.invocations.list()).map((row) => row.id).sort()).toEqual(["i1", "i2"]);
  });
});

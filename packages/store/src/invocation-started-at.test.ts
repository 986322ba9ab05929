import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { invocationStartedAt } from "./migrations/2026-11-27T1700-invocation-started-at.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const row = {
  tool: "reasoning_linear",
  operation: null,
  session_id: null,
  provider: "fake",
  model: "fake-model",
  input_tokens: 1,
  output_tokens: 1,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  model_calls: 1,
  success: true,
  error_code: null,
  error_message: null,
  quality: null,
};

describe.each(testDialects)("invocations' started_at on %s", (dialect) => {
  const memoryStore = useTestStores(dialect);

  it("is written as given, or as the finish less the latency", async () => {
    const store = await memoryStore();
    await store.invocations.record({
      ...row,
      id: "i1",
      latency_ms: 1500,
      created_at: "2026-11-27T10:00:05.000Z",
      started_at: "2026-11-27T09:59:00.000Z",
    });
    await store.invocations.record({ ...row, id: "i2", latency_ms: 1500.6, created_at: "2026-11-27T10:00:05.000Z" });
    const rows = await store.invocations.list();
    expect(Object.fromEntries(rows.map((entry) => [entry.id, entry.started_at]))).toEqual({
      i1: "2026-11-27T09:59:00.000Z",
      i2: "2026-11-27T10:00:03.499Z",
    });
  });

  it("the migration gives rows recorded before it their finish less their latency", async () => {
    const store = await memoryStore();
    await store.invocations.record({ ...row, id: "old", latency_ms: 2500, created_at: "2026-11-27T10:00:05.000Z" });
    // The table as it was before the migration, with a row in it: then the migration runs.
    await sql`alter table invocations drop column started_at`.execute(store.db);
    await invocationStartedAt.up(store.db);
    const [old] = await store.invocations.list();
    expect(old).toMatchObject({
      id: "old",
      created_at: "2026-11-27T10:00:05.000Z",
      started_at: "2026-11-27T10:00:02.500Z",
    });
  });
});

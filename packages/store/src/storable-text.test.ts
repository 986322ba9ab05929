import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import type { NewInvocation } from "./repositories/invocation.repository.ts";
import { storableParameters } from "./storable-text.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const now = "2026-11-22T10:00:00.000Z";

function failedInvocation(message: string): NewInvocation {
  return {
    id: "inv_1",
    tool: "reasoning_linear",
    operation: null,
    session_id: "s1",
    provider: "openai",
    model: "m",
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    model_calls: 1,
    latency_ms: 1,
    success: false,
    error_code: "PROVIDER_ERROR",
    error_message: message,
    quality: null,
    created_at: now,
  };
}

describe("storableParameters", () => {
  it("returns the same array when no string holds U+0000", () => {
    const parameters = ["a", 1, null, ["b"], Buffer.from([0])];
    expect(storableParameters(parameters)).toBe(parameters);
  });

  it("replaces U+0000 in strings and in arrays of strings, leaving the caller's array alone", () => {
    const parameters = ["a\u0000b", 2, ["\u0000", "c", 3]];
    expect(storableParameters(parameters)).toEqual(["a\uFFFDb", 2, ["\uFFFD", "c", 3]]);
    expect(parameters).toEqual(["a\u0000b", 2, ["\u0000", "c", 3]]);
  });
});

describe.each(testDialects)("text with U+0000 on %s", (dialect) => {
  const open = useTestStores(dialect);

  it("stores a model's text holding U+0000 as U+FFFD instead of failing, the same on every dialect", async () => {
    const store = await open();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    await store.thoughts.append({
      id: "t1",
      session_id: "s1",
      mode: "linear",
      content: "a\u0000b\u0000",
      created_at: now,
    });
    expect((await store.thoughts.find("t1"))?.content).toBe("a\uFFFDb\uFFFD");
    expect((await store.thoughts.listBySession("s1")).map((row) => row.content)).toEqual(["a\uFFFDb\uFFFD"]);
  });

  it("stores a provider's error message holding U+0000 (batched rows and prepared statements too)", async () => {
    const store = await open();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    await store.invocations.record(failedInvocation("upstream said \u0000 here"));
    const [row] = await store.invocations.list({ sessionId: "s1" });
    expect(row?.error_message).toBe("upstream said \uFFFD here");
  });

  it("replaces U+0000 in `sql` template parameters and in lookups, inside transactions too", async () => {
    const store = await open();
    await store.transaction(async (repositories) => {
      await sql`insert into sessions (id, mode, created_at, updated_at) values (${"s\u0000x"}, ${"linear"}, ${now}, ${now})`.execute(
        repositories.db,
      );
    });
    expect((await store.sessions.find("s\u0000x"))?.id).toBe("s\uFFFDx");
    expect((await store.sessions.find("s\uFFFDx"))?.id).toBe("s\uFFFDx");
  });

  it("keeps U+0000 inside JSON columns as the JSON escape, read back unchanged", async () => {
    const store = await open();
    await store.sessions.create({ id: "s1", mode: "linear", now });
    await store.thoughts.append({
      id: "t1",
      session_id: "s1",
      mode: "linear",
      content: "x",
      metadata: { note: "a\u0000b", ["k\u0000"]: 1 },
      created_at: now,
    });
    expect((await store.thoughts.find("t1"))?.metadata).toEqual({ note: "a\u0000b", ["k\u0000"]: 1 });
    const stored = await sql<{ metadata: string }>`select metadata from thoughts where id = ${"t1"}`.execute(store.db);
    expect(stored.rows[0]?.metadata).toBe('{"note":"a\\u0000b","k\\u0000":1}');
  });
});

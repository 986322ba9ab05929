import { metricsOutputSchema, metricsTool } from "@deliberate/contracts";
import type { NewInvocation, Store } from "@deliberate/store";
import { describe, expect, it } from "vitest";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";
import { redactConfig } from "./metrics.handler.ts";

const { setup } = useTestEngines();

let sequence = 0;
function row(overrides: Partial<NewInvocation>): NewInvocation {
  sequence += 1;
  return {
    id: `inv_${String(sequence).padStart(4, "0")}`,
    tool: "reasoning_linear",
    operation: null,
    session_id: null,
    provider: "anthropic",
    model: "claude",
    input_tokens: 10,
    output_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    model_calls: 1,
    latency_ms: 100,
    success: true,
    error_code: null,
    error_message: null,
    quality: null,
    created_at: "2026-11-20T10:00:00.000Z",
    ...overrides,
  };
}

/**
 * reasoning_tree: 100 calls with latencies 1..100 ms (operation create for the
 * odd ones, list for the even ones); five of them failed (rate limited x3,
 * timeout x2). reasoning_linear: 4 calls, one failing with MODEL_OUTPUT_INVALID,
 * two in session ses_a, the newest on 2026-11-22.
 */
async function seed(store: Store): Promise<void> {
  for (let latency = 1; latency <= 100; latency += 1) {
    const failure = latency <= 3 ? "PROVIDER_RATE_LIMITED" : latency <= 5 ? "PROVIDER_TIMEOUT" : null;
    await store.invocations.record(
      row({
        tool: "reasoning_tree",
        operation: latency % 2 === 1 ? "create" : "list",
        latency_ms: latency,
        success: failure === null,
        error_code: failure,
        error_message: failure === null ? null : `failed: ${failure}`,
        provider: failure === null ? "anthropic" : null,
        model_calls: failure === null ? 1 : 0,
        input_tokens: failure === null ? 10 : 0,
        output_tokens: failure === null ? 5 : 0,
      }),
    );
  }
  await store.invocations.record(row({ session_id: "ses_a", latency_ms: 200, created_at: "2026-11-21T10:00:00.000Z" }));
  await store.invocations.record(
    row({
      session_id: "ses_a",
      latency_ms: 300.4,
      created_at: "2026-11-22T09:00:00.000Z",
      quality: 0.8,
      rounds: 3,
      cache_read_tokens: 6,
      cache_write_tokens: 2,
    }),
  );
  await store.invocations.record(row({ provider: "host", model: "host", latency_ms: 400 }));
  await store.invocations.record(
    row({ success: false, error_code: "MODEL_OUTPUT_INVALID", error_message: "bad answer", latency_ms: 500 }),
  );
}

async function metrics(engine: TestEngine["engine"], args: Record<string, unknown>) {
  return metricsOutputSchema.parse(await engine.invoke("reasoning_metrics", args));
}

describe("reasoning_metrics", () => {
  it("is read-only, closed-world and never calls a model", async () => {
    expect(metricsTool.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(metricsTool.usesModel).toBe(false);
    const { engine, model, store } = await setup([]);
    await seed(store);
    for (const query of ["summary", "by_mode", "invocations", "fallbacks", "config"]) await metrics(engine, { query });
    expect(model.calls).toHaveLength(0);
  });

  it("summary: totals over every recorded call", async () => {
    const { engine, store } = await setup([]);
    await seed(store);
    const { summary } = await metrics(engine, { query: "summary" });
    expect(summary).toEqual({
      total_calls: 104,
      success_count: 98,
      failure_count: 6,
      success_rate: 98 / 104,
      avg_latency_ms: (5050 + 200 + 300.4 + 400 + 500) / 104,
      model_calls: 95 + 4,
      input_tokens: 990,
      output_tokens: 495,
      by_mode: { reasoning_tree: 100, reasoning_linear: 4 },
    });

    const scoped = await metrics(engine, { query: "summary", session_id: "ses_a" });
    expect(scoped.summary).toMatchObject({ total_calls: 2, by_mode: { reasoning_linear: 2 } });
    const recent = await metrics(engine, { query: "summary", since: "2026-11-21" });
    expect(recent.summary).toMatchObject({ total_calls: 2, success_rate: 1 });
  });

  it("summary: empty history has null rates, not invented ones", async () => {
    const { engine } = await setup([]);
    const { summary } = await metrics(engine, { query: "summary" });
    expect(summary).toEqual({
      total_calls: 0,
      success_count: 0,
      failure_count: 0,
      success_rate: null,
      avg_latency_ms: null,
      model_calls: 0,
      input_tokens: 0,
      output_tokens: 0,
      by_mode: {},
    });
  });

  it("by_mode: nearest-rank p50/p95/p99 per tool and per operation", async () => {
    const { engine, store } = await setup([]);
    await seed(store);
    const { mode_stats } = await metrics(engine, { query: "by_mode", mode_name: "tree" });
    expect(mode_stats).toMatchObject({
      mode_name: "reasoning_tree",
      call_count: 100,
      success_count: 95,
      failure_count: 5,
      success_rate: 0.95,
      avg_latency_ms: 50.5,
      latency_p50_ms: 50,
      latency_p95_ms: 95,
      latency_p99_ms: 99,
      model_calls: 95,
      error_codes: { PROVIDER_RATE_LIMITED: 3, PROVIDER_TIMEOUT: 2 },
    });
    // create: 1, 3, ..., 99 -> p50 = 49, p95 = 95, p99 = 99; list: 2, 4, ..., 100 -> 50, 96, 100.
    expect(mode_stats?.by_operation).toEqual([
      expect.objectContaining({
        operation: "create",
        call_count: 50,
        failure_count: 3,
        latency_p50_ms: 49,
        latency_p95_ms: 95,
        latency_p99_ms: 99,
      }),
      expect.objectContaining({
        operation: "list",
        call_count: 50,
        failure_count: 2,
        latency_p50_ms: 50,
        latency_p95_ms: 96,
        latency_p99_ms: 100,
      }),
    ]);

    const same = await metrics(engine, { query: "by_mode", mode_name: "reasoning_tree" });
    expect(same.mode_stats).toEqual(mode_stats);
  });

  it("by_mode: every tool with calls when mode_name is omitted; zero calls give nulls", async () => {
    const { engine, store } = await setup([]);
    await seed(store);
    const { modes } = await metrics(engine, { query: "by_mode" });
    expect(modes?.map((mode) => [mode.mode_name, mode.call_count])).toEqual([
      ["reasoning_tree", 100],
      ["reasoning_linear", 4],
    ]);
    expect(modes?.[1]).toMatchObject({
      latency_p50_ms: 300.4,
      latency_p99_ms: 500,
      error_codes: { MODEL_OUTPUT_INVALID: 1 },
    });

    const { mode_stats } = await metrics(engine, { query: "by_mode", mode_name: "mcts" });
    expect(mode_stats).toMatchObject({
      mode_name: "reasoning_mcts",
      call_count: 0,
      success_rate: null,
      latency_p50_ms: null,
      by_operation: [],
    });
  });

  it("by_mode: an unknown mode or tool is NOT_FOUND naming the field, not a row of zeros", async () => {
    const { engine } = await setup([]);
    const unknownMode = await errorOf(engine.invoke("reasoning_metrics", { query: "by_mode", mode_name: "treee" }));
    expect(unknownMode.code).toBe("NOT_FOUND");
    expect(unknownMode.issues[0]?.field).toBe("mode_name");
    const unknownTool = await errorOf(
      engine.invoke("reasoning_metrics", { query: "by_mode", tool_name: "reasoning_nope" }),
    );
    expect(unknownTool.issues[0]?.field).toBe("tool_name");
  });

  it("invocations: newest first, filtered by tool, session, outcome and time, with limit", async () => {
    const { engine, store } = await setup([]);
    await seed(store);
    const all = await metrics(engine, { query: "invocations", limit: "3" });
    expect(all.invocations?.map((invocation) => invocation.created_at)).toEqual([
      "2026-11-22T09:00:00.000Z",
      "2026-11-21T10:00:00.000Z",
      "2026-11-20T10:00:00.000Z",
    ]);
    expect(all.invocations?.[0]).toMatchObject({
      tool_name: "reasoning_linear",
      session_id: "ses_a",
      latency_ms: 300,
      quality: 0.8,
      success: true,
    });
    // What the row recorded is what the query returns: host rounds and prompt-cache tokens included.
    expect(all.invocations?.[0]).toMatchObject({
      rounds: 3,
      input_tokens: 10,
      cache_read_tokens: 6,
      cache_write_tokens: 2,
    });
    expect(all.invocations?.[1]).toMatchObject({ rounds: 1, cache_read_tokens: 0, cache_write_tokens: 0 });

    const failures = await metrics(engine, { query: "invocations", success: "false", tool_name: "reasoning_tree" });
    expect(failures.invocations).toHaveLength(5);
    expect(failures.invocations?.every((invocation) => !invocation.success && invocation.error_code !== null)).toBe(
      true,
    );

    const successes = await metrics(engine, { query: "invocations", success_only: true, session_id: "ses_a" });
    expect(successes.invocations?.map((invocation) => invocation.latency_ms)).toEqual([300, 200]);

    const since = await metrics(engine, { query: "invocations", since: "2026-11-21T12:00:00+01:00" });
    expect(since.invocations?.map((invocation) => invocation.created_at)).toEqual(["2026-11-22T09:00:00.000Z"]);

    const limited = await metrics(engine, { query: "invocations" });
    expect(limited.invocations).toHaveLength(100); // default limit
  });

  it("fallbacks: calls by provider, failures by error code, with recommendations from the figures", async () => {
    const { engine, store } = await setup([]);
    await seed(store);
    const { fallbacks } = await metrics(engine, { query: "fallbacks" });
    expect(fallbacks?.total_calls).toBe(104);
    expect(fallbacks?.by_provider).toEqual([
      {
        provider: "anthropic",
        call_count: 98,
        failure_count: 1,
        model_calls: 98,
        input_tokens: 980,
        output_tokens: 490,
      },
      { provider: "none", call_count: 5, failure_count: 5, model_calls: 0, input_tokens: 0, output_tokens: 0 },
      { provider: "host", call_count: 1, failure_count: 0, model_calls: 1, input_tokens: 10, output_tokens: 5 },
    ]);
    expect(fallbacks?.by_error_code).toEqual([
      { error_code: "PROVIDER_RATE_LIMITED", count: 3, share: 3 / 104, tools: ["reasoning_tree"] },
      { error_code: "PROVIDER_TIMEOUT", count: 2, share: 2 / 104, tools: ["reasoning_tree"] },
      { error_code: "MODEL_OUTPUT_INVALID", count: 1, share: 1 / 104, tools: ["reasoning_linear"] },
    ]);
    expect(fallbacks?.recommendations).toEqual([
      "3 of 104 calls (2.9%) were rate limited: lower the engine's concurrency or raise the provider's rate limit.",
      "2 of 104 calls (1.9%) timed out: raise the timeout of the modes concerned or use a faster model for reasoning_tree.",
      "1 of 104 calls (1%) got model answers that failed validation even after a repair round: use a model with structured-output support for reasoning_linear.",
      "1 of 104 calls (1%) were host-executed (answered by the calling agent): configure a server-side provider to answer them in one round trip.",
    ]);

    const linearOnly = await metrics(engine, { query: "fallbacks", tool_name: "reasoning_linear" });
    expect(linearOnly.fallbacks?.total_calls).toBe(4);
  });

  it("config: the effective configuration with secrets redacted", async () => {
    const { engine } = await setup([], {
      concurrency: 3,
      configSnapshot: {
        providers: {
          provider: "anthropic",
          anthropic: { apiKey: "(set)", baseURL: "https://user:hunter2@gateway.example/v1" },
        },
        openai: { api_key: "sk-live-123" },
        http: { bearerToken: "tok-456", port: 8080 },
        database: { path: "./data/deliberate.db" },
      },
    });
    const { config } = await metrics(engine, { query: "config" });
    const text = JSON.stringify(config);
    for (const secret of ["sk-live-123", "tok-456", "hunter2"]) expect(text).not.toContain(secret);
    expect(config).toMatchObject({
      providers: { provider: "anthropic", anthropic: { apiKey: "(set)", baseURL: "https://gateway.example/v1" } },
      openai: { api_key: "(redacted)" },
      http: { bearerToken: "(redacted)", port: 8080 },
      database: { path: "./data/deliberate.db" },
      engine: { concurrency: 3, mode_settings: { linear: { temperature: 0.7, maxTokens: 2000 } } },
    });
  });

  it("records its own calls but leaves them out of every figure", async () => {
    const { engine, store } = await setup(
      bySchemaName({ linear_continuation: { content: "next", confidence: 0.6, next_step: "more" } }),
    );
    await engine.invoke("reasoning_linear", { content: "A thought" });
    const first = await metrics(engine, { query: "summary" });
    const second = await metrics(engine, { query: "summary" });
    expect(second).toEqual(first);
    expect(first.summary).toMatchObject({ total_calls: 1, by_mode: { reasoning_linear: 1 } });
    expect((await metrics(engine, { query: "by_mode" })).modes?.map((mode) => mode.mode_name)).toEqual([
      "reasoning_linear",
    ]);
    expect(
      (await metrics(engine, { query: "invocations" })).invocations?.map((invocation) => invocation.tool_name),
    ).toEqual(["reasoning_linear"]);
    expect((await metrics(engine, { query: "fallbacks" })).fallbacks?.total_calls).toBe(1);

    // Asked for by name, they are there: recorded like any call.
    const own = await metrics(engine, { query: "invocations", tool_name: "reasoning_metrics" });
    expect(own.invocations).toHaveLength(5); // the five calls above; this one is recorded as it returns
    expect(await store.invocations.list({ tool: "reasoning_metrics" })).toHaveLength(6);
  });

  it("rejects bad filters naming the field, writing nothing", async () => {
    const { engine, store } = await setup([]);
    const since = await errorOf(engine.invoke("reasoning_metrics", { query: "invocations", since: "yesterday" }));
    expect(since.code).toBe("INVALID_INPUT");
    expect(since.issues).toEqual([
      {
        field: "since",
        message: "since must be an ISO 8601 date or date-time, e.g. 2026-11-22 or 2026-11-22T05:00:00Z",
      },
    ]);

    const contradiction = await errorOf(
      engine.invoke("reasoning_metrics", { query: "invocations", success_only: true, success: false }),
    );
    expect(contradiction.issues).toEqual([
      { field: "success", message: "success=false contradicts success_only=true: drop one of them" },
    ]);

    const limit = await errorOf(engine.invoke("reasoning_metrics", { query: "invocations", limit: 0 }));
    expect(limit.issues.map((issue) => issue.field)).toEqual(["limit"]);
    const query = await errorOf(engine.invoke("reasoning_metrics", { query: "everything" }));
    expect(query.issues.map((issue) => issue.field)).toEqual(["query"]);
    expect(await store.invocations.list({})).toHaveLength(0);
  });
});

describe("redactConfig", () => {
  it("keeps redaction marks and non-secret fields, and never passes a secret through", () => {
    expect(
      redactConfig({
        apiKey: "(not set)",
        maxTokens: 2000,
        list: [{ password: "p" }, "http://a:b@host/"],
        clientSecret: { nested: "x" },
        token: null,
      }),
    ).toEqual({
      apiKey: "(not set)",
      maxTokens: 2000,
      list: [{ password: "(redacted)" }, "http://host/"],
      clientSecret: "(redacted)",
      token: null,
    });
  });
});

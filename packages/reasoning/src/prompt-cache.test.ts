import { createEngine } from "@deliberate/engine";
import { createSequentialIds } from "@deliberate/engine";
import {
  createAnthropicModel,
  createModelRouterFromModel,
  createOpenAIModel,
  type LanguageModel,
} from "@deliberate/providers";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { reasoningModule } from "./module.ts";

/**
 * A 10-call session through the real engine and tool (reasoning_linear), the
 * real SDKs and the fake server's prompt cache with the providers' real
 * minimum (1,024 tokens): the session's history goes as separate messages,
 * the last one marked, so each call reads what the previous ones wrote.
 * PRINT_CACHE_SHARE=1 prints the figures.
 */

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer({
    cacheMinimumTokens: 1_024,
    respond: (request) => {
      const step = /Step (\d+) of the review/.exec(request.prompt)?.[1] ?? "?";
      return {
        object: {
          content:
            `After step ${step}, the next consideration is how the cache is invalidated when the upstream record changes; `.repeat(
              5,
            ),
          confidence: 0.7,
          next_step: `Examine step ${Number(step) + 1}`,
        },
      };
    },
  });
});
afterAll(async () => {
  await server.close();
});

async function session(model: LanguageModel) {
  const store = await openStore({ path: ":memory:", modules: [reasoningModule] });
  stores.push(store);
  const engine = createEngine({
    store,
    modules: [reasoningModule],
    models: createModelRouterFromModel(model),
    ids: createSequentialIds(),
  });
  let sessionId: string | undefined;
  for (let step = 1; step <= 10; step += 1) {
    const content =
      `Step ${step} of the review: the service caches configuration for five minutes, and we must decide what happens when a write lands during that window. `.repeat(
        4,
      );
    const output = await engine.invoke("reasoning_linear", {
      content,
      ...(sessionId ? { session_id: sessionId } : {}),
    });
    sessionId = output["session_id"] as string;
  }
  const rows = (await store.invocations.list({ tool: "reasoning_linear" })).reverse();
  const input = rows.reduce((total, row) => total + row.input_tokens, 0);
  const read = rows.reduce((total, row) => total + row.cache_read_tokens, 0);
  const written = rows.reduce((total, row) => total + row.cache_write_tokens, 0);
  return { rows, input, read, written, share: read / input };
}

describe("prompt caching of a session's history through the engine", () => {
  it("Anthropic: later calls of a 10-call session read the history from the cache", async () => {
    server.reset();
    const result = await session(
      createAnthropicModel({
        apiKey: "k",
        baseURL: server.anthropicBaseURL,
        modelId: "claude-test",
        timeoutMs: 10_000,
        maxRetries: 0,
      }),
    );
    if (process.env["PRINT_CACHE_SHARE"])
      console.info(
        `per call (input/read/written): ${result.rows.map((row) => `${row.input_tokens}/${row.cache_read_tokens}/${row.cache_write_tokens}`).join(" ")}`,
      );
    if (process.env["PRINT_CACHE_SHARE"])
      console.info(
        `anthropic: input ${result.input}, cache read ${result.read}, written ${result.written}, share ${(result.share * 100).toFixed(1)}%`,
      );
    // Each request marks the system prompt and the last history message: two breakpoints once there is history.
    expect(server.requests.slice(1).every((request) => request.cacheBreakpoints === 2)).toBe(true);
    expect(result.rows.every((row) => row.success)).toBe(true);
    expect(result.share).toBeGreaterThan(0.4);
    // Once a prefix reaches the minimum it is written, and the next calls read it and write only what was
    // added; when the history window moves on a page (call 9: 16 earlier thoughts), one call writes anew.
    expect(result.rows.map((row) => row.cache_read_tokens > 0)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      false,
      true,
    ]);
    expect(result.rows[3]?.cache_write_tokens).toBeGreaterThan(1_024);
    expect(result.rows[8]?.cache_write_tokens).toBeGreaterThan(1_024);
  });

  it("OpenAI: the automatic prefix cache reads the repeated history", async () => {
    server.reset();
    const result = await session(
      createOpenAIModel({
        apiKey: "k",
        baseURL: server.openaiBaseURL,
        modelId: "gpt-test",
        timeoutMs: 10_000,
        maxRetries: 0,
      }),
    );
    if (process.env["PRINT_CACHE_SHARE"])
      console.info(
        `openai: input ${result.input}, cache read ${result.read}, share ${(result.share * 100).toFixed(1)}%`,
      );
    expect(result.share).toBeGreaterThan(0.4);
  });
});

import type { ProgressUpdate } from "./engine-types.ts";
import { createAnthropicModel, createModelRouterFromModel, type LanguageModel } from "@deliberate/providers";
import { createFakeModelServer, createScriptedModel, type FakeModelServer } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeModule } from "../test/fixtures/probe-module.ts";
import { createEngine, type EngineOptions } from "./engine.ts";
import { createSequentialIds } from "./ids.ts";
import { errorOf } from "./testing.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer();
});
afterAll(async () => {
  await server.close();
});

async function engineWith(model: LanguageModel, options: Partial<EngineOptions> = {}) {
  const store = await openStore({ path: ":memory:", modules: [probeModule] });
  stores.push(store);
  return {
    engine: createEngine({
      store,
      modules: [probeModule],
      models: createModelRouterFromModel(model),
      ids: createSequentialIds(),
      ...options,
    }),
    store,
  };
}

const anthropic = () =>
  createAnthropicModel({
    apiKey: "k",
    baseURL: server.anthropicBaseURL,
    modelId: "claude-test",
    timeoutMs: 10_000,
    maxRetries: 0,
  });

describe("runMode", () => {
  it("records what a failed call spent: provider, model, both answers and their tokens", async () => {
    const model = createScriptedModel({ answer: { text: "" }, modelId: "scripted-7" });
    const { engine, store } = await engineWith(model);
    const error = await errorOf(engine.invoke("probe_history", {}));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    const [row] = await store.invocations.list({ tool: "probe_history" });
    expect(row).toMatchObject({
      success: false,
      error_code: "MODEL_OUTPUT_INVALID",
      provider: "scripted",
      model: "scripted-7",
      model_calls: 2,
    });
    expect(row?.input_tokens).toBeGreaterThan(0);
    expect(row?.output_tokens).toBeGreaterThan(0);
  });

  it("counts a repaired answer as two model calls", async () => {
    const model = createScriptedModel([{ text: "" }, { text: "fixed" }]);
    const { engine, store } = await engineWith(model);
    await engine.invoke("probe_history", {});
    expect(await store.invocations.list({ tool: "probe_history" })).toMatchObject([{ success: true, model_calls: 2 }]);
  });

  it("maps the mode's thinking settings onto the model: a budget for budget models, an effort for adaptive ones", async () => {
    server.reset();
    server.setRespond({ object: { text: "ok" } });
    const model = (modelId: string) =>
      createAnthropicModel({
        apiKey: "k",
        baseURL: server.anthropicBaseURL,
        modelId,
        timeoutMs: 10_000,
        maxRetries: 0,
      });
    const budget = await engineWith(model("claude-sonnet-4-5"), { modeSettings: { probe: { thinkingBudget: 4096 } } });
    await budget.engine.invoke("probe_history", {});
    const adaptive = await engineWith(model("claude-opus-4-8"), { modeSettings: { probe: { thinkingBudget: 4096 } } });
    await adaptive.engine.invoke("probe_history", {});
    const explicit = await engineWith(model("claude-opus-4-8"), {
      modeSettings: { probe: { thinkingBudget: 4096, effort: "low" } },
    });
    await explicit.engine.invoke("probe_history", {});
    expect(
      server.requests.map((request) => ({
        thinking: request.body["thinking"],
        effort: request.effort,
        refused: request.refused,
      })),
    ).toEqual([
      { thinking: { type: "enabled", budget_tokens: 4096 }, effort: undefined, refused: undefined },
      { thinking: { type: "adaptive" }, effort: "medium", refused: undefined },
      { thinking: { type: "adaptive" }, effort: "low", refused: undefined },
    ]);
  });

  it("sends the history as separate messages before the prompt, the last one marked for the prompt cache", async () => {
    server.reset();
    server.setRespond({ object: { text: "ok" } });
    const { engine } = await engineWith(anthropic());
    await engine.invoke("probe_history", { history: ["What is slow?", "The build.", "Why?"] });
    const request = server.requests[0];
    expect(request?.messages.map((message) => message.content)).toEqual([
      "What is slow?",
      "The build.",
      "Why?",
      "Prompt a",
    ]);
    // The system block and the last history message.
    expect(request?.cacheBreakpoints).toBe(2);
    const sent = request?.body["messages"] as Array<{ content: Array<{ cache_control?: unknown }> | string }>;
    const marks = sent.map((message) =>
      Array.isArray(message.content) ? message.content.some((block) => block.cache_control !== undefined) : false,
    );
    expect(marks).toEqual([false, false, true, false]);
  });

  it("streams a mode that asks for it and reports its tokens as rising progress", async () => {
    server.reset();
    server.setRespond({
      object: { text: "a fairly long answer that arrives in many small pieces ".repeat(8) },
      chunkCharacters: 8,
    });
    const { engine } = await engineWith(anthropic(), { generationProgressIntervalMs: 0 });
    const updates: ProgressUpdate[] = [];
    await engine.invoke("probe_history", {}, { progress: (update) => updates.push(update) });
    expect(server.requests[0]?.stream).toBe(true);
    const generating = updates.filter((update) => update.message?.startsWith("generating probe: "));
    expect(generating.length).toBeGreaterThan(5);
    const tokens = generating.map((update) => Number(/(\d+) token/.exec(update.message ?? "")?.[1]));
    expect(tokens.at(-1)).toBeGreaterThan(50);
    const progress = generating.map((update) => update.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.every((value) => value < 1)).toBe(true);
  });

  it("throttles the token reports: with a long interval only the first event and the completed answer pass", async () => {
    server.reset();
    server.setRespond({ object: { text: "piece ".repeat(60) }, chunkCharacters: 8 });
    const { engine } = await engineWith(anthropic(), { generationProgressIntervalMs: 3_600_000 });
    const updates: ProgressUpdate[] = [];
    await engine.invoke("probe_history", {}, { progress: (update) => updates.push(update) });
    expect(updates.filter((update) => update.message?.startsWith("generating probe: "))).toHaveLength(2);
  });
});

import { DeliberateError } from "@deliberate/base";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { parseProviderEnvironment } from "./environment.ts";
import type { GenerateOptions } from "./language-model.ts";
import { createModelRouter, createModelRouterFromModel } from "./model-router.ts";
import { createFakeModelServer, createScriptedModel, type FakeModelServer } from "./testing/index.ts";

const schema = z.object({ ok: z.boolean() });
const ask: GenerateOptions<{ ok: boolean }> = {
  system: "Check.",
  messages: [{ role: "user", content: "Is it fine?" }],
  schema,
  schemaName: "check",
  maxTokens: 50,
};

async function failure(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer({ respond: { object: { ok: true } } });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  server.setRespond({ object: { ok: true } });
});

describe("createModelRouter", () => {
  it("without a provider, fails every call with PROVIDER_NOT_CONFIGURED naming what to set", async () => {
    const router = createModelRouter(parseProviderEnvironment({}));
    expect(router).toMatchObject({ provider: "none", configured: false });
    const error = await failure(router.forMode("linear").generate(ask));
    expect(error.code).toBe("PROVIDER_NOT_CONFIGURED");
    for (const variable of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "DELIBERATE_PROVIDER"]) {
      expect(error.message).toContain(variable);
    }
  });

  it("with an explicit provider but no key, names the missing key", async () => {
    const router = createModelRouter(parseProviderEnvironment({ DELIBERATE_PROVIDER: "anthropic" }));
    expect(router).toMatchObject({ provider: "anthropic", configured: false });
    const error = await failure(router.forMode("tree").generate(ask));
    expect(error.code).toBe("PROVIDER_NOT_CONFIGURED");
    expect(error.message).toContain("ANTHROPIC_API_KEY is not set");
  });

  it("routes each mode to its Anthropic model id on one client", async () => {
    const settings = parseProviderEnvironment({
      ...server.environment("anthropic"),
      ANTHROPIC_MODEL_TREE: "claude-tree",
    });
    const router = createModelRouter(settings);
    expect(router).toMatchObject({ provider: "anthropic", configured: true });
    expect(router.forMode("tree").modelId).toBe("claude-tree");
    expect(router.forMode("auto").modelId).toBe("claude-haiku-4-5");
    expect(router.forMode("linear")).toBe(router.forMode("linear"));

    await router.forMode("tree").generate(ask);
    await router.forMode("auto").generate(ask);
    await router.forMode("linear").generate({ ...ask, modelId: "claude-per-call" });
    expect(server.requests.map((request) => [request.wire, request.model])).toEqual([
      ["anthropic", "claude-tree"],
      ["anthropic", "claude-haiku-4-5"],
      ["anthropic", "claude-per-call"],
    ]);
  });

  it("routes to an OpenAI-compatible server and applies MAX_RETRIES from the environment", async () => {
    const settings = parseProviderEnvironment({
      ...server.environment("openai"),
      OPENAI_MODEL: "local-model",
      MAX_RETRIES: "0",
    });
    const router = createModelRouter(settings);
    const result = await router.forMode("divergent").generate(ask);
    expect(result.object).toEqual({ ok: true });
    expect(server.requests[0]).toMatchObject({ wire: "openai", model: "local-model" });

    server.setRespond({ status: 500, retryAfterMs: 1 });
    const error = await failure(router.forMode("divergent").generate(ask));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(server.requests).toHaveLength(2);
  });
});

describe("createModelRouterFromModel", () => {
  it("gives every mode the same model", async () => {
    const model = createScriptedModel({ answer: { ok: false } });
    const router = createModelRouterFromModel(model);
    expect(router).toMatchObject({ provider: "scripted", configured: true });
    expect(router.forMode("mcts")).toBe(model);
    expect((await router.forMode("graph").generate(ask)).object).toEqual({ ok: false });
  });

  it("hands OPENAI_REASONING_MODELS to the OpenAI models", async () => {
    const settings = parseProviderEnvironment({
      ...server.environment("openai"),
      OPENAI_MODEL: "gpt-4.1-mini",
      OPENAI_MODEL_TREE: "my-reasoner",
      OPENAI_REASONING_MODELS: "default,my-reasoner",
    });
    const router = createModelRouter(settings);
    await router.forMode("tree").generate({ ...ask, temperature: 0.5 });
    await router.forMode("linear").generate({ ...ask, temperature: 0.5 });
    // A reasoning model's cap leaves room for its reasoning (at the least effort: low, 4,096 tokens).
    expect(server.requests[0]?.body).toMatchObject({
      model: "my-reasoner",
      max_completion_tokens: 50 + 4_096,
      reasoning_effort: "low",
    });
    expect(server.requests[0]?.body).not.toHaveProperty("temperature");
    expect(server.requests[1]?.body).toMatchObject({ model: "gpt-4.1-mini", max_tokens: 50, temperature: 0.5 });
  });
});

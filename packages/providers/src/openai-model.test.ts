import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { GenerateOptions } from "./language-model.ts";
import { createOpenAIModel, type OpenAIModelOptions } from "./openai-model.ts";
import { createFakeModelServer, type FakeModelServer } from "./testing/index.ts";

/** OpenAI wire specifics: response_format, max_tokens, json_object mode, local servers without a key. */

const planSchema = z.object({ steps: z.array(z.string()).min(1) });
const valid = { steps: ["measure", "cut"] };

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

function model(options: Partial<OpenAIModelOptions> = {}) {
  return createOpenAIModel({
    apiKey: "test-key",
    baseURL: server.openaiBaseURL,
    modelId: "gpt-test",
    timeoutMs: 10_000,
    maxRetries: 0,
    ...options,
  });
}

/** Each case runs twice: answered whole, and streamed. */
let streamed = false;

function ask(
  overrides: Partial<GenerateOptions<z.infer<typeof planSchema>>> = {},
): GenerateOptions<z.infer<typeof planSchema>> {
  return {
    system: "You plan carpentry work.",
    messages: [{ role: "user", content: "Plan a shelf." }],
    schema: planSchema,
    schemaName: "plan",
    maxTokens: 400,
    temperature: 0.3,
    stream: streamed,
    ...overrides,
  };
}

describe.each([false, true])("createOpenAIModel (streamed: %s)", (stream) => {
  beforeEach(() => {
    streamed = stream;
  });

  it("asks for strict json_schema with max_tokens, temperature and one system message", async () => {
    server.setRespond({ object: valid });
    const result = await model().generate(ask({ thinkingBudget: 5_000 }));

    const body = server.requests[0]?.body ?? {};
    expect(body["response_format"]).toEqual({
      type: "json_schema",
      json_schema: {
        name: "plan",
        strict: true,
        schema: {
          type: "object",
          properties: { steps: { type: "array", items: { type: "string" }, minItems: 1 } },
          required: ["steps"],
          additionalProperties: false,
        },
      },
    });
    expect(body["max_tokens"]).toBe(400);
    expect(body["temperature"]).toBe(0.3);
    expect(body).not.toHaveProperty("max_completion_tokens");
    expect(body).not.toHaveProperty("reasoning_effort");
    const messages = body["messages"] as Array<{ role: string; content: string }>;
    expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(messages[0]?.content.startsWith("You plan carpentry work.")).toBe(true);
    expect(server.requests[0]).toMatchObject({
      path: "/v1/chat/completions",
      stream,
      strict: true,
      refused: undefined,
    });
    expect(result.object).toEqual(valid);
  });

  it("sends a schema with no strict form as it is, strict: false, and says so once", async () => {
    server.setRespond({ object: { scores: { a: 1 } } });
    const warnings: string[] = [];
    const open = z.object({ scores: z.unknown() });
    const openModel = model({ warn: (message) => warnings.push(message) });
    const result = await openModel.generate({ ...ask(), schema: open, schemaName: `open_scores_${String(stream)}` });
    await openModel.generate({ ...ask(), schema: open, schemaName: `open_scores_${String(stream)}` });

    expect(server.requests[0]?.body["response_format"]).toMatchObject({
      json_schema: { strict: false, schema: { properties: { scores: {} } } },
    });
    expect(result.object).toEqual({ scores: { a: 1 } });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("scores accepts any value");
  });

  it("in json_object mode puts the JSON schema in the prompt", async () => {
    server.setRespond({ object: valid });
    const result = await model({ structuredOutput: "json_object" }).generate(ask());

    const request = server.requests[0];
    expect(request?.body["response_format"]).toEqual({ type: "json_object" });
    expect(request?.system).toContain('"required":["steps"]');
    expect(request?.schemaName).toBe("plan");
    expect(result.object).toEqual(valid);
  });

  it("works without an API key (local servers such as Ollama)", async () => {
    server.setRespond({ object: valid });
    const result = await model({ apiKey: undefined }).generate(ask());
    expect(result.object).toEqual(valid);
    expect(server.requests[0]?.headers["authorization"]).toBe("[redacted]");
  });

  it("repairs with the invalid answer as the assistant turn and the problems as the user turn", async () => {
    server.setRespond(['```json\n{"steps": []}\n```', { object: valid }]);
    const result = await model().generate(ask());

    expect(result.object).toEqual(valid);
    const messages = server.requests[1]?.body["messages"] as Array<{ role: string; content: string }>;
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[2]?.content).toBe('```json\n{"steps": []}\n```');
    expect(messages[3]?.content).toContain("steps");
  });

  it("reports a 404 (unknown model or wrong base URL) as PROVIDER_BAD_REQUEST with a hint about /v1", async () => {
    server.setRespond({ status: 404, message: "model 'llama9' not found" });
    const error = await model({ modelId: "llama9" })
      .generate(ask())
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "PROVIDER_BAD_REQUEST", hint: expect.stringContaining("/v1") });
    expect((error as Error).message).toContain("model 'llama9' not found");
  });
});

describe("createOpenAIModel with reasoning models", () => {
  it.each([
    ["o1", "low"],
    ["o3-mini", "low"],
    ["o4-mini", "low"],
    ["gpt-5", "low"],
    ["gpt-5.1", "low"],
    ["gpt-5-mini", "low"],
  ])(
    "sends %s max_completion_tokens with room for its reasoning, reasoning_effort %s and no temperature",
    async (modelId, effort) => {
      server.setRespond({ object: valid });
      const result = await model({ modelId }).generate(ask({ thinkingBudget: 1_000 }));

      const body = server.requests[0]?.body ?? {};
      expect(body["max_completion_tokens"]).toBe(400 + 4_096);
      expect(body["reasoning_effort"]).toBe(effort);
      expect(body).not.toHaveProperty("max_tokens");
      expect(body).not.toHaveProperty("temperature");
      expect(server.requests[0]).toMatchObject({ maxTokens: 4_496, strict: true, refused: undefined });
      expect(result.object).toEqual(valid);
    },
  );

  it("maps a mode's thinking onto the efforts each model takes, the least effort when none is asked", async () => {
    server.setRespond({ object: valid });
    await model({ modelId: "gpt-5-mini" }).generate(ask());
    await model({ modelId: "gpt-5.1" }).generate(ask());
    await model({ modelId: "gpt-5-mini" }).generate(ask({ thinkingBudget: 8_192 }));
    await model({ modelId: "gpt-5.2" }).generate(ask({ thinkingBudget: 16_384 }));
    await model({ modelId: "o3" }).generate(ask({ effort: "max" }));

    const bodies = server.requests.map((request) => request.body);
    expect(bodies[0]).toMatchObject({ reasoning_effort: "minimal", max_completion_tokens: 400 + 2_048 });
    expect(bodies[1]).toMatchObject({ reasoning_effort: "none", max_completion_tokens: 400 });
    expect(bodies[2]).toMatchObject({ reasoning_effort: "high", max_completion_tokens: 400 + 16_384 });
    expect(bodies[3]).toMatchObject({ reasoning_effort: "xhigh", max_completion_tokens: 400 + 32_768 });
    expect(bodies[4]).toMatchObject({ reasoning_effort: "high", max_completion_tokens: 400 + 16_384 });
    expect(server.requests.map((request) => request.refused)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("decides per call, by the model id the call uses", async () => {
    server.setRespond({ object: valid });
    await model({ modelId: "gpt-4.1-mini" }).generate(ask({ modelId: "o3" }));
    await model({ modelId: "o3" }).generate(ask({ modelId: "gpt-4.1-mini" }));
    expect(server.requests[0]?.body).toMatchObject({
      model: "o3",
      max_completion_tokens: 400 + 4_096,
      reasoning_effort: "low",
    });
    expect(server.requests[0]?.body).not.toHaveProperty("temperature");
    expect(server.requests[1]?.body).toMatchObject({ model: "gpt-4.1-mini", max_tokens: 400, temperature: 0.3 });
    expect(server.requests[1]?.body).not.toHaveProperty("reasoning_effort");
  });

  it("follows the configured list: extra ids with wildcards, exclusions, or none at all", async () => {
    server.setRespond({ object: valid });
    await model({ modelId: "qwq:32b", reasoningModels: ["default", "qwq*"] }).generate(ask());
    await model({ modelId: "gpt-5-chat-latest", reasoningModels: ["default", "!gpt-5-chat*"] }).generate(ask());
    await model({ modelId: "deepseek-r1:8b", reasoningModels: [] }).generate(ask());

    const [qwq, chat, none] = server.requests.map((request) => request.body);
    expect(qwq).toMatchObject({ max_completion_tokens: 400 + 4_096, reasoning_effort: "low" });
    expect(qwq).not.toHaveProperty("temperature");
    // ChatGPT's chat snapshot: not a reasoning model, but its sampling is fixed.
    expect(chat).toMatchObject({ max_completion_tokens: 400 });
    expect(chat).not.toHaveProperty("temperature");
    expect(none).toMatchObject({ max_tokens: 400, temperature: 0.3 });
  });

  it("takes capabilities from overrides for ids the table does not know", async () => {
    server.setRespond({ object: valid });
    await model({
      modelId: "qwen3:32b",
      capabilityOverrides: [
        {
          pattern: "qwen3*",
          capabilities: { reasoning: true, effort: ["low", "high"], maxCompletionTokens: true, temperature: false },
        },
      ],
    }).generate(ask({ thinkingBudget: 8_192 }));
    expect(server.requests[0]?.body).toMatchObject({ reasoning_effort: "high", max_completion_tokens: 400 + 16_384 });
  });

  it("streams reasoning models the same way, asking for usage in the stream", async () => {
    server.setRespond({ object: valid });
    const result = await model({ modelId: "o4-mini" }).generate(ask({ stream: true }));
    expect(server.requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 400 + 4_096,
    });
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });
});

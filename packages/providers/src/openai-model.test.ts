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
  return createOpenAIModel({ apiKey: "test-key", baseURL: server.openaiBaseURL, modelId: "gpt-test", timeoutMs: 10_000, maxRetries: 0, ...options });
}

/** Each case runs twice: answered whole, and streamed. */
let streamed = false;

function ask(overrides: Partial<GenerateOptions<z.infer<typeof planSchema>>> = {}): GenerateOptions<z.infer<typeof planSchema>> {
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

  it("asks for json_schema (not strict) with max_tokens, temperature and one system message", async () => {
    server.setRespond({ object: valid });
    const result = await model().generate(ask({ thinkingBudget: 5_000 }));

    const body = server.requests[0]?.body ?? {};
    expect(body["response_format"]).toMatchObject({
      type: "json_schema",
      json_schema: { name: "plan", strict: false, schema: { type: "object", required: ["steps"] } },
    });
    expect(body["max_tokens"]).toBe(400);
    expect(body["temperature"]).toBe(0.3);
    expect(body).not.toHaveProperty("max_completion_tokens");
    const messages = body["messages"] as Array<{ role: string; content: string }>;
    expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
    expect(messages[0]?.content.startsWith("You plan carpentry work.")).toBe(true);
    expect(server.requests[0]?.path).toBe("/v1/chat/completions");
    expect(server.requests[0]?.stream).toBe(stream);
    expect(result.object).toEqual(valid);
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
    const error = await model({ modelId: "llama9" }).generate(ask()).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "PROVIDER_BAD_REQUEST", hint: expect.stringContaining("/v1") });
    expect((error as Error).message).toContain("model 'llama9' not found");
  });
});

describe("createOpenAIModel with reasoning models", () => {
  it.each(["o1", "o3-mini", "o4-mini", "gpt-5", "gpt-5.1", "gpt-5-mini"])(
    "sends %s max_completion_tokens (answer plus thinking budget) and no temperature",
    async (modelId) => {
      server.setRespond({ object: valid });
      const result = await model({ modelId }).generate(ask({ thinkingBudget: 1_000 }));

      const body = server.requests[0]?.body ?? {};
      expect(body["max_completion_tokens"]).toBe(1_400);
      expect(body).not.toHaveProperty("max_tokens");
      expect(body).not.toHaveProperty("temperature");
      expect(server.requests[0]?.maxTokens).toBe(1_400);
      expect(result.object).toEqual(valid);
    },
  );

  it("decides per call, by the model id the call uses", async () => {
    server.setRespond({ object: valid });
    await model({ modelId: "gpt-4.1-mini" }).generate(ask({ modelId: "o3" }));
    await model({ modelId: "o3" }).generate(ask({ modelId: "gpt-4.1-mini" }));
    expect(server.requests[0]?.body).toMatchObject({ model: "o3", max_completion_tokens: 400 });
    expect(server.requests[0]?.body).not.toHaveProperty("temperature");
    expect(server.requests[1]?.body).toMatchObject({ model: "gpt-4.1-mini", max_tokens: 400, temperature: 0.3 });
  });

  it("follows the configured list: extra ids with wildcards, exclusions, or none at all", async () => {
    server.setRespond({ object: valid });
    await model({ modelId: "qwq:32b", reasoningModels: ["default", "qwq*"] }).generate(ask());
    await model({ modelId: "gpt-5-chat-latest", reasoningModels: ["default", "!gpt-5-chat*"] }).generate(ask());
    await model({ modelId: "o3", reasoningModels: [] }).generate(ask());

    const [qwq, chat, none] = server.requests.map((request) => request.body);
    expect(qwq).toMatchObject({ max_completion_tokens: 400 });
    expect(qwq).not.toHaveProperty("temperature");
    expect(chat).toMatchObject({ max_tokens: 400, temperature: 0.3 });
    expect(none).toMatchObject({ max_tokens: 400, temperature: 0.3 });
  });

  it("streams reasoning models the same way, asking for usage in the stream", async () => {
    server.setRespond({ object: valid });
    const result = await model({ modelId: "o4-mini" }).generate(ask({ stream: true }));
    expect(server.requests[0]?.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 400,
    });
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });
});

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFakeModelServer, type FakeModelServer } from "./fake-model-server.ts";
import { respondBySchemaName } from "./fake-respond.ts";

/** The fake server as other packages use it: raw HTTP and the SDKs pointed at its documented base URLs. */

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

async function post(
  path: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

const anthropicTool = {
  model: "claude-test",
  max_tokens: 100,
  system: [{ type: "text", text: "System prompt.", cache_control: { type: "ephemeral" } }],
  messages: [{ role: "user", content: "Question?" }],
  tools: [{ name: "verdict", input_schema: { type: "object", properties: { ok: { type: "boolean" } } } }],
  tool_choice: { type: "tool", name: "verdict" },
};

const openaiSchema = {
  model: "gpt-test",
  max_tokens: 100,
  messages: [
    { role: "system", content: "System prompt." },
    { role: "user", content: "Question?" },
  ],
  response_format: { type: "json_schema", json_schema: { name: "verdict", schema: { type: "object" }, strict: false } },
};

describe("createFakeModelServer", () => {
  it("normalizes Anthropic requests and answers a forced tool with a tool_use block", async () => {
    server.setRespond({ object: { ok: true } });
    const { status, json } = await post("/v1/messages", anthropicTool);

    expect(status).toBe(200);
    expect(json).toMatchObject({
      type: "message",
      stop_reason: "tool_use",
      content: [{ type: "tool_use", name: "verdict", input: { ok: true } }],
      usage: { cache_read_input_tokens: 0 },
    });
    expect(server.requests[0]).toMatchObject({
      wire: "anthropic",
      model: "claude-test",
      system: "System prompt.",
      messages: [{ role: "user", content: "Question?" }],
      prompt: "Question?",
      schemaName: "verdict",
      structured: "tool",
      attempt: 0,
      index: 0,
    });
  });

  it("normalizes OpenAI requests and answers with the JSON as message content", async () => {
    server.setRespond({ object: { ok: true } });
    const { json } = await post("/v1/chat/completions", openaiSchema);
    expect(json).toMatchObject({
      object: "chat.completion",
      choices: [{ message: { role: "assistant", content: '{"ok":true}' }, finish_reason: "stop" }],
    });
    expect(server.requests[0]).toMatchObject({
      wire: "openai",
      schemaName: "verdict",
      structured: "json_schema",
      system: "System prompt.",
    });
  });

  it("accepts the paths without the /v1 prefix", async () => {
    server.setRespond("hi");
    expect((await post("/messages", anthropicTool)).status).toBe(200);
    expect((await post("/chat/completions", openaiSchema)).status).toBe(200);
    expect((await post("/v1/embeddings", {})).status).toBe(404);
  });

  it("dispatches on the schema name, with a catch-all and per-schema queues", async () => {
    server.setRespond(
      respondBySchemaName({
        verdict: [{ object: { ok: true } }, { object: { ok: false } }],
        "*": { text: "fallback" },
      }),
    );
    const first = await post("/v1/chat/completions", openaiSchema);
    const second = await post("/v1/chat/completions", openaiSchema);
    const other = await post("/v1/chat/completions", { ...openaiSchema, response_format: undefined });
    const contents = [first, second, other].map(
      ({ json }) => (json["choices"] as Array<{ message: { content: string } }>)[0]?.message.content,
    );
    expect(contents).toEqual(['{"ok":true}', '{"ok":false}', "fallback"]);
  });

  it("sends scripted failures in the wire's error format with retry headers", async () => {
    server.setRespond({ status: 429, retryAfterSeconds: 2, retryAfterMs: 2_000, message: "easy" });
    const anthropic = await post("/v1/messages", anthropicTool);
    expect(anthropic.status).toBe(429);
    expect(anthropic.json).toEqual({ type: "error", error: { type: "rate_limit_error", message: "easy" } });
    expect(anthropic.headers.get("retry-after")).toBe("2");
    expect(anthropic.headers.get("retry-after-ms")).toBe("2000");

    const openai = await post("/v1/chat/completions", openaiSchema);
    expect(openai.json).toMatchObject({ error: { message: "easy", type: "rate_limit_exceeded" } });
  });

  it("explains a reply it does not understand, and an exhausted queue, as non-retryable 500s", async () => {
    server.setRespond(() => ({ ok: true }) as never);
    const unknown = await post("/v1/messages", anthropicTool);
    expect(unknown.status).toBe(500);
    expect(unknown.headers.get("x-should-retry")).toBe("false");
    expect(JSON.stringify(unknown.json)).toContain("wrap a structured answer as { object: ... }");

    server.setRespond([{ text: "once" }]);
    await post("/v1/messages", anthropicTool);
    expect(JSON.stringify((await post("/v1/messages", anthropicTool)).json)).toContain("ran out of scripted replies");
  });

  it("says so when nothing is scripted", async () => {
    const empty = await createFakeModelServer();
    try {
      const response = await fetch(`${empty.url}/v1/messages`, { method: "POST", body: JSON.stringify(anthropicTool) });
      expect(response.status).toBe(500);
      expect(await response.text()).toContain("Nothing is scripted");
    } finally {
      await empty.close();
    }
  });

  it("serves the real SDKs at anthropicBaseURL and openaiBaseURL, and describes the environment for services", async () => {
    server.setRespond({ text: "hello" });
    const anthropic = new Anthropic({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content).toEqual([{ type: "text", text: "hello", citations: null }]);

    const openai = new OpenAI({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.choices[0]?.message.content).toBe("hello");

    expect(server.environment("anthropic")).toEqual({
      DELIBERATE_PROVIDER: "anthropic",
      ANTHROPIC_API_KEY: expect.any(String),
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(server.environment("openai")).toMatchObject({
      DELIBERATE_PROVIDER: "openai",
      OPENAI_BASE_URL: `${server.url}/v1`,
    });
  });

  it("closes promptly while a delayed reply is pending", async () => {
    const slow = await createFakeModelServer({ respond: { delayMs: 60_000 } });
    const pending = fetch(`${slow.url}/v1/messages`, { method: "POST", body: JSON.stringify(anthropicTool) }).catch(
      (error: unknown) => error,
    );
    while (slow.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await slow.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  it("streams Anthropic answers as the SSE events the SDK's own stream helper assembles", async () => {
    server.setRespond({ object: { ok: true }, chunkCharacters: 4 });
    const anthropic = new Anthropic({ apiKey: "k", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    // Thinking forbids a forced tool (a 400, as on the API): offer it.
    const stream = anthropic.messages.stream({
      ...anthropicTool,
      max_tokens: 2_000,
      tool_choice: { type: "auto" },
      thinking: { type: "enabled", budget_tokens: 1_024 },
    } as never);
    const partials: string[] = [];
    stream.on("inputJson", (partial) => partials.push(partial));
    const message = await stream.finalMessage();

    expect(server.requests[0]?.stream).toBe(true);
    expect(message.content).toMatchObject([
      { type: "thinking", thinking: "(fake model server) Working out the answer.", signature: "fake-signature-1" },
      { type: "tool_use", name: "verdict", input: { ok: true } },
    ]);
    expect(partials.join("")).toBe('{"ok":true}');
    expect(partials.length).toBe(3);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toMatchObject({ output_tokens: 15, cache_read_input_tokens: 0 });
    expect(message.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("streams Anthropic SSE on the wire: named events from message_start to message_stop", async () => {
    server.setRespond("Hi there");
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...anthropicTool, tools: undefined, tool_choice: undefined, stream: true }),
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = [...(await response.text()).matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
    expect(events).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("streams OpenAI answers as chunks the SDK's own stream helper assembles, usage last when asked for, then [DONE]", async () => {
    server.setRespond({ text: "hello streaming world", chunkCharacters: 5 });
    const openai = new OpenAI({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const stream = openai.chat.completions.stream({
      ...openaiSchema,
      response_format: undefined,
      stream_options: { include_usage: true },
    } as never);
    const deltas: string[] = [];
    stream.on("content", (delta) => deltas.push(delta));
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]?.message.content).toBe("hello streaming world");
    expect(deltas).toEqual(["hello", " stre", "aming", " worl", "d"]);
    expect(completion.usage).toMatchObject({ completion_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } });

    const raw = await fetch(`${server.openaiBaseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...openaiSchema, stream: true }),
    });
    const lines = (await raw.text()).split("\n").filter((line) => line.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    expect(lines.some((line) => line.includes('"usage":{'))).toBe(false);
  });

  it("rejects more than four cache_control blocks, as the API does", async () => {
    server.setRespond({ object: { ok: true } });
    const marked = (text: string) => ({
      role: "user",
      content: [{ type: "text", text, cache_control: { type: "ephemeral" } }],
    });
    const body = { ...anthropicTool, messages: ["a", "b", "c", "d"].map(marked) };
    const rejected = await post("/v1/messages", body);
    expect(rejected.status).toBe(400);
    expect(JSON.stringify(rejected.json)).toContain(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
    expect((await post("/v1/messages", { ...body, messages: body.messages.slice(1) })).status).toBe(200);
  });

  it("reads a cached prefix up to 20 blocks before a breakpoint, and only prefixes that were written", async () => {
    server.setRespond({ object: { ok: true } });
    const message = (index: number, mark = false) => ({
      role: index % 2 === 0 ? "user" : "assistant",
      content: [
        {
          type: "text",
          text: `message number ${index} `.repeat(10),
          ...(mark ? { cache_control: { type: "ephemeral" } } : {}),
        },
      ],
    });
    const history = (length: number, markLast: boolean) =>
      Array.from({ length }, (_, index) => message(index, markLast && index === length - 1));
    const usageOf = async (messages: unknown[]) => {
      const { json } = await post("/v1/messages", { ...anthropicTool, system: "System prompt.", messages });
      return json["usage"] as {
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        input_tokens: number;
      };
    };

    const first = await usageOf(history(3, true));
    expect(first.cache_read_input_tokens).toBe(0);
    const written = first.cache_creation_input_tokens;
    // 10 blocks later the lookback still finds the prefix the first call wrote.
    const near = await usageOf(history(13, true));
    expect(near.cache_read_input_tokens).toBe(written);
    // Without a breakpoint nothing is looked up, even for a prefix in the cache.
    expect((await usageOf(history(14, false))).cache_read_input_tokens).toBe(0);
    server.reset();
    await usageOf(history(3, true));
    // 21 blocks later the lookback no longer reaches it.
    const far = await usageOf(history(3 + 21, true));
    expect(far.cache_read_input_tokens).toBe(0);
  });

  it("caches nothing shorter than cacheMinimumTokens, like the real minimum cacheable length", async () => {
    const strict = await createFakeModelServer({ respond: { object: { ok: true } }, cacheMinimumTokens: 1_024 });
    try {
      const anthropic = new Anthropic({ apiKey: "k", baseURL: strict.anthropicBaseURL, maxRetries: 0 });
      const ask = (text: string) =>
        anthropic.messages.create({
          ...(anthropicTool as Anthropic.MessageCreateParamsNonStreaming),
          messages: [{ role: "user", content: [{ type: "text", text, cache_control: { type: "ephemeral" } }] }],
        });
      await ask("short history");
      expect((await ask("short history")).usage.cache_read_input_tokens).toBe(0);
      const long = "a long and stable session history. ".repeat(150);
      expect((await ask(long)).usage.cache_creation_input_tokens).toBeGreaterThanOrEqual(1_024);
      expect((await ask(long)).usage.cache_read_input_tokens).toBeGreaterThanOrEqual(1_024);

      const openai = new OpenAI({ apiKey: "k", baseURL: strict.openaiBaseURL, maxRetries: 0 });
      const chat = (content: string) =>
        openai.chat.completions.create({ model: "m", messages: [{ role: "user", content }] });
      await chat("short");
      expect((await chat("short")).usage?.prompt_tokens_details?.cached_tokens).toBe(0);
      await chat(`${long} first question`);
      const cached = (await chat(`${long} second question`)).usage?.prompt_tokens_details?.cached_tokens ?? 0;
      expect(cached).toBeGreaterThanOrEqual(1_024);
      expect(cached).toBeLessThan(Math.ceil(long.length / 4) + 5);
    } finally {
      await strict.close();
    }
  });
});

describe("createFakeModelServer refuses what the real APIs refuse", () => {
  const strictSchema = {
    type: "object",
    properties: { ok: { type: "boolean" } },
    required: ["ok"],
    additionalProperties: false,
  };
  const messages = [{ role: "user", content: "Question?" }];
  const anthropic = (body: Record<string, unknown>) => ({
    model: "claude-opus-4-8",
    max_tokens: 2_000,
    messages,
    ...body,
  });
  const openai = (body: Record<string, unknown>) => ({ model: "gpt-5-mini", messages, ...body });
  const format = (schema: unknown) => ({ output_config: { format: { type: "json_schema", schema } } });
  const tool = (input_schema: unknown, extra: Record<string, unknown> = {}) => ({
    tools: [{ name: "verdict", input_schema, ...extra }],
  });
  const jsonSchema = (schema: unknown) => ({
    response_format: { type: "json_schema", json_schema: { name: "verdict", schema, strict: true } },
  });

  it.each([
    [
      "manual thinking on the adaptive generation",
      anthropic({ thinking: { type: "enabled", budget_tokens: 1_024 } }),
      '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    ],
    [
      "adaptive thinking on the budget generation",
      { ...anthropic({ thinking: { type: "adaptive" } }), model: "claude-sonnet-4-5" },
      '"thinking.type.adaptive" is not supported',
    ],
    [
      "disabling thinking where it always runs",
      { ...anthropic({ thinking: { type: "disabled" } }), model: "claude-opus-5-5" },
      '"thinking.type.disabled" is not supported for this model.',
    ],
    [
      "a budget not below max_tokens",
      { ...anthropic({ thinking: { type: "enabled", budget_tokens: 2_000 } }), model: "claude-sonnet-4-5" },
      "`max_tokens` must be greater than `thinking.budget_tokens`",
    ],
    [
      "a budget below 1,024",
      { ...anthropic({ thinking: { type: "enabled", budget_tokens: 500 } }), model: "claude-sonnet-4-5" },
      "greater than or equal to 1024",
    ],
    ["sampling parameters", anthropic({ temperature: 0.5 }), "temperature: Extra inputs are not permitted"],
    [
      "an effort the model does not take",
      { ...anthropic({ output_config: { effort: "high" } }), model: "claude-sonnet-4-5" },
      "does not support the effort parameter",
    ],
    [
      "an effort level the model does not take",
      { ...anthropic({ output_config: { effort: "xhigh" } }), model: "claude-sonnet-4-6" },
      '"xhigh" is not supported for this model',
    ],
    [
      "anyOf at a tool schema's root",
      anthropic(tool({ type: "object", anyOf: [{ type: "object" }] })),
      "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level",
    ],
    [
      "a tool schema whose root is not an object",
      anthropic(tool({ type: "array", items: { type: "string" } })),
      "tools.0.custom.input_schema.type: Input should be 'object'",
    ],
    [
      "a forced tool while thinking",
      anthropic({
        ...tool(strictSchema),
        tool_choice: { type: "tool", name: "verdict" },
        thinking: { type: "adaptive" },
      }),
      "Thinking may not be enabled when tool_choice forces tool use.",
    ],
    [
      "a forced tool on Opus 5.5",
      { ...anthropic({ ...tool(strictSchema), tool_choice: { type: "any" } }), model: "claude-opus-5-5" },
      'tool_choice: "any" is not supported for this model',
    ],
    [
      "an open object in a strict format",
      anthropic(format({ type: "object", properties: { ok: { type: "boolean" } } })),
      "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false",
    ],
    [
      "a numeric bound in a strict format",
      anthropic(format({ ...strictSchema, properties: { ok: { type: "integer", minimum: 1 } } })),
      "For 'integer' type, property 'minimum' is not supported",
    ],
    [
      "minItems above 1 in a strict tool",
      anthropic(
        tool(
          { ...strictSchema, properties: { ok: { type: "array", items: { type: "string" }, minItems: 2 } } },
          { strict: true },
        ),
      ),
      "'minItems' values other than 0 or 1 are not supported",
    ],
    [
      "more than 24 optional properties",
      anthropic(
        format({
          type: "object",
          properties: Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`p${index}`, { type: "string" }])),
          additionalProperties: false,
        }),
      ),
      "too many optional parameters",
    ],
    [
      "a format on a model without structured outputs",
      { ...anthropic(format(strictSchema)), model: "claude-opus-4-1" },
      "Structured outputs are not supported for this model.",
    ],
    [
      "max_tokens past the model's output limit",
      { ...anthropic({}), model: "claude-sonnet-4-5", max_tokens: 70_000 },
      "max_tokens: 70000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5",
    ],
  ])("Anthropic: %s", async (_case, body, message) => {
    const { status, json } = await post("/v1/messages", body);
    expect(status).toBe(400);
    expect(json).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining(message) },
    });
    expect(server.requests[0]?.refused).toContain(message);
  });

  it.each([
    [
      "max_tokens on a reasoning model",
      openai({ max_tokens: 100 }),
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      "max_tokens",
    ],
    [
      "a temperature on a reasoning model",
      openai({ max_completion_tokens: 100, temperature: 0.2 }),
      "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.",
      "temperature",
    ],
    [
      "an effort the model does not take",
      openai({ reasoning_effort: "none" }),
      "Unsupported value: 'reasoning_effort' does not support 'none' with this model. Supported values are: 'minimal', 'low', 'medium', 'high'.",
      "reasoning_effort",
    ],
    [
      "reasoning_effort on a chat model",
      { ...openai({ reasoning_effort: "low" }), model: "gpt-4.1-mini" },
      "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
      "reasoning_effort",
    ],
    [
      "a cap past the model's limit",
      { ...openai({ max_tokens: 40_000 }), model: "gpt-4.1-mini" },
      "max_tokens is too large: 40000. This model supports at most 32768 completion tokens, whereas you provided 40000.",
      "max_tokens",
    ],
    [
      "a strict schema with an optional property",
      openai(
        jsonSchema({
          type: "object",
          properties: { ok: { type: "boolean" } },
          required: [],
          additionalProperties: false,
        }),
      ),
      "Invalid schema for response_format 'verdict': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'ok'.",
      "response_format",
    ],
    [
      "a strict schema with an open object",
      openai(
        jsonSchema({
          type: "object",
          properties: { ok: { type: "object", properties: {} } },
          required: ["ok"],
          additionalProperties: false,
        }),
      ),
      "In context=('properties', 'ok'), 'additionalProperties' is required to be supplied and to be false.",
      "response_format",
    ],
    [
      "a strict schema with a default",
      openai(jsonSchema({ ...strictSchema, properties: { ok: { type: "boolean", default: true } } })),
      "'default' is not permitted.",
      "response_format",
    ],
    [
      "a strict schema with an array root",
      openai(jsonSchema({ type: "array", items: { type: "string" } })),
      `schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`,
      "response_format",
    ],
    [
      "json_schema on a model without it",
      { ...openai(jsonSchema(strictSchema)), model: "gpt-3.5-turbo" },
      "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
      "response_format",
    ],
  ])("OpenAI: %s", async (_case, body, message, param) => {
    const { status, json } = await post("/v1/chat/completions", body);
    expect(status).toBe(400);
    expect(json).toMatchObject({
      error: { message: expect.stringContaining(message), type: "invalid_request_error", param },
    });
    expect(server.requests[0]?.refused).toContain(message);
  });

  it("accepts what the APIs accept: adaptive thinking with an effort and a strict format, a reasoning model's own parameters", async () => {
    server.setRespond({ object: { ok: true } });
    const anthropicAnswer = await post(
      "/v1/messages",
      anthropic({
        thinking: { type: "adaptive" },
        output_config: { effort: "xhigh", ...format(strictSchema).output_config },
        system: 'Reply with only a JSON object for "verdict".',
      }),
    );
    const openaiAnswer = await post(
      "/v1/chat/completions",
      openai({ max_completion_tokens: 100, reasoning_effort: "minimal", ...jsonSchema(strictSchema) }),
    );
    expect(anthropicAnswer.status).toBe(200);
    // A format answer is JSON text after the thinking, not a tool call.
    expect(anthropicAnswer.json["content"]).toMatchObject([
      { type: "thinking" },
      { type: "text", text: '{"ok":true}' },
    ]);
    expect(openaiAnswer.status).toBe(200);
    expect(
      server.requests.map((request) => ({
        refused: request.refused,
        strict: request.strict,
        schemaName: request.schemaName,
        effort: request.effort,
      })),
    ).toEqual([
      { refused: undefined, strict: true, schemaName: "verdict", effort: "xhigh" },
      { refused: undefined, strict: true, schemaName: "verdict", effort: "minimal" },
    ]);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "./anthropic-model.ts";
import type { GenerateOptions } from "./language-model.ts";
import { createFakeModelServer, type FakeModelServer } from "./testing/index.ts";

/** Anthropic wire specifics: caching, output_config.format or a tool, thinking by model, repair. */

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

function model(modelId = "claude-test") {
  return createAnthropicModel({
    apiKey: "test-key",
    baseURL: server.anthropicBaseURL,
    modelId,
    timeoutMs: 10_000,
    maxRetries: 0,
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
    schemaDescription: "The plan, step by step.",
    maxTokens: 400,
    temperature: 0.3,
    stream: streamed,
    ...overrides,
  };
}

/** Every request the fake refused, with the reason: a test that expects none asserts an empty list. */
const refusals = () =>
  server.requests
    .filter((request) => request.refused !== undefined)
    .map((request) => `${request.model}: ${request.refused}`);

describe.each([false, true])("createAnthropicModel (streamed: %s)", (stream) => {
  beforeEach(() => {
    streamed = stream;
  });

  it("asks for output_config.format with the strict schema, caches the system prompt and sends no temperature or tools", async () => {
    server.setRespond({ object: valid });
    const result = await model("claude-sonnet-4-5").generate(ask());

    const body = server.requests[0]?.body ?? {};
    expect(body["system"]).toEqual([
      { type: "text", text: "You plan carpentry work.", cache_control: { type: "ephemeral" } },
      { type: "text", text: 'Reply with only a JSON object for "plan" that follows the given JSON schema.' },
    ]);
    expect(body["output_config"]).toEqual({
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { steps: { type: "array", items: { type: "string" }, minItems: 1 } },
          required: ["steps"],
          additionalProperties: false,
        },
      },
    });
    expect(body).not.toHaveProperty("tools");
    expect(body).not.toHaveProperty("tool_choice");
    expect(body["max_tokens"]).toBe(400);
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("thinking");
    expect(server.requests[0]).toMatchObject({
      path: "/v1/messages",
      stream,
      structured: "json_schema",
      strict: true,
      schemaName: "plan",
    });
    expect(result.object).toEqual(valid);
    expect(refusals()).toEqual([]);
  });

  it("gives a budget model (Sonnet 4.5) its thinking budget on top of max_tokens, keeping the format", async () => {
    server.setRespond({ object: valid });
    const result = await model("claude-sonnet-4-5").generate(ask({ thinkingBudget: 2_000 }));

    const body = server.requests[0]?.body ?? {};
    expect(body["thinking"]).toEqual({ type: "enabled", budget_tokens: 2_000 });
    expect(body["max_tokens"]).toBe(2_400);
    expect(body["output_config"]).not.toHaveProperty("effort");
    expect(body["output_config"]).toHaveProperty("format");
    expect(result.object).toEqual(valid);
    expect(refusals()).toEqual([]);
  });

  it("raises a thinking budget below the API minimum to 1,024", async () => {
    server.setRespond({ object: valid });
    await model("claude-sonnet-4-5").generate(ask({ thinkingBudget: 100 }));
    expect(server.requests[0]?.body["thinking"]).toEqual({ type: "enabled", budget_tokens: 1_024 });
    expect(server.requests[0]?.body["max_tokens"]).toBe(1_424);
  });

  it("gives an adaptive model (Opus 4.8) adaptive thinking at the effort its budget stands for, with room for the thinking", async () => {
    server.setRespond({ object: valid });
    await model("claude-opus-4-8").generate(ask({ thinkingBudget: 8_192 }));
    await model("claude-opus-4-8").generate(ask({ thinkingBudget: 16_384 }));
    await model("claude-opus-4-8").generate(ask({ effort: "low" }));
    await model("claude-opus-4-8").generate(ask());

    const [deep, maximum, low, none] = server.requests.map((request) => request.body);
    expect(deep).toMatchObject({
      thinking: { type: "adaptive" },
      output_config: { effort: "high" },
      max_tokens: 400 + 16_384,
    });
    expect(maximum).toMatchObject({
      thinking: { type: "adaptive" },
      output_config: { effort: "xhigh" },
      max_tokens: 400 + 32_768,
    });
    expect(low).toMatchObject({
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
      max_tokens: 400 + 4_096,
    });
    expect(none).not.toHaveProperty("thinking");
    expect(none?.["output_config"]).not.toHaveProperty("effort");
    expect(none?.["max_tokens"]).toBe(400);
    expect(refusals()).toEqual([]);
  });

  it("turns thinking off on a model that thinks by default (Opus 5), and asks one that always thinks (Opus 5.5) for the least effort", async () => {
    server.setRespond({ object: valid });
    await model("claude-opus-5").generate(ask());
    await model("claude-opus-5-5").generate(ask());
    expect(server.requests[0]?.body).toMatchObject({ thinking: { type: "disabled" }, max_tokens: 400 });
    expect(server.requests[1]?.body).toMatchObject({
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
      max_tokens: 400 + 4_096,
    });
    expect(server.requests[1]?.body).not.toHaveProperty("tool_choice");
    expect(refusals()).toEqual([]);
  });

  it("repairs a format answer with the answer sent back and a user message asking for the JSON object", async () => {
    server.setRespond([{ object: { steps: [] } }, { object: valid }]);
    const result = await model("claude-opus-4-8").generate(ask({ thinkingBudget: 4_096 }));

    expect(result.object).toEqual(valid);
    const messages = server.requests[1]?.body["messages"] as Array<{ role: string; content: unknown }>;
    expect(messages).toHaveLength(3);
    const assistant = messages[1]?.content as Array<Record<string, unknown>>;
    expect(assistant.map((block) => block["type"])).toEqual(["thinking", "text"]);
    expect(assistant[0]?.["signature"]).toBe("fake-signature-1");
    expect(messages[2]?.role).toBe("user");
    expect(String(messages[2]?.content)).toContain("Reply with only the JSON object");
    expect(refusals()).toEqual([]);
  });

  it("uses a forced tool on a model without structured outputs, and an offered one while it thinks", async () => {
    server.setRespond({ object: valid });
    await model("claude-opus-4-1").generate(ask());
    const result = await model("claude-opus-4-1").generate(ask({ thinkingBudget: 2_000 }));

    expect(server.requests[0]?.body).toMatchObject({
      tool_choice: { type: "tool", name: "plan", disable_parallel_tool_use: true },
    });
    expect(server.requests[0]?.body["tools"]).toMatchObject([
      { name: "plan", description: "The plan, step by step.", input_schema: { type: "object", required: ["steps"] } },
    ]);
    expect(server.requests[0]?.body).not.toHaveProperty("output_config");
    expect(server.requests[1]?.body).toMatchObject({
      thinking: { type: "enabled", budget_tokens: 2_000 },
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
    });
    expect(server.requests[1]?.system).toContain("`plan` tool");
    expect(result.object).toEqual(valid);
    expect(refusals()).toEqual([]);
  });

  it("accepts a JSON answer in text (fenced) when thinking made the tool optional", async () => {
    server.setRespond({ text: 'Here is the plan:\n```json\n{"steps": ["measure", "cut"]}\n```' });
    const result = await model("claude-opus-4-1").generate(ask({ thinkingBudget: 1_500 }));
    expect(result.object).toEqual(valid);
    expect(server.requests).toHaveLength(1);
  });

  it("repairs through a tool_result marked is_error, echoing the thinking and tool_use blocks", async () => {
    server.setRespond([{ object: { steps: [] } }, { object: valid }]);
    const result = await model("claude-opus-4-1").generate(ask({ thinkingBudget: 1_024 }));

    expect(result.object).toEqual(valid);
    const messages = server.requests[1]?.body["messages"] as Array<{ role: string; content: unknown }>;
    expect(messages).toHaveLength(3);
    const assistant = messages[1]?.content as Array<Record<string, unknown>>;
    expect(assistant.map((block) => block["type"])).toEqual(["thinking", "tool_use"]);
    expect(assistant[0]?.["signature"]).toBe("fake-signature-1");
    const toolResult = (messages[2]?.content as Array<Record<string, unknown>> | undefined)?.[0];
    expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: assistant[1]?.["id"], is_error: true });
    expect(String(toolResult?.["content"])).toContain("steps");
  });

  it("repairs a text answer to a forced tool with a user message asking for the tool", async () => {
    server.setRespond(["no idea", { object: valid }]);
    await model("claude-opus-4-1").generate(ask());
    const messages = server.requests[1]?.body["messages"] as Array<{ role: string; content: unknown }>;
    expect(messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "no idea" }] });
    expect(messages[2]?.role).toBe("user");
    expect(String(messages[2]?.content)).toContain("Call the `plan` tool");
  });

  it("sends no empty system block (the API rejects empty text blocks)", async () => {
    server.setRespond({ object: valid });
    await model("claude-opus-4-1").generate(ask({ system: "  " }));
    expect(server.requests[0]?.body).not.toHaveProperty("system");
    await model().generate(ask({ system: "  " }));
    expect(server.requests[1]?.body["system"]).toEqual([
      { type: "text", text: 'Reply with only a JSON object for "plan" that follows the given JSON schema.' },
    ]);
  });

  it("reports a structured answer cut off at max_tokens as invalid, with the hint to raise maxTokens", async () => {
    server.setRespond({ text: '{"steps": ["meas', finishReason: "length" });
    const error = await model("claude-sonnet-4-5")
      .generate(ask({ thinkingBudget: 1_024 }))
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "MODEL_OUTPUT_INVALID", hint: expect.stringContaining("maxTokens") });
  });
});

describe("createAnthropicModel long requests", () => {
  it("streams when the room for thinking takes max_tokens past what the SDK sends unstreamed, even if asked not to", async () => {
    server.setRespond({ object: valid });
    const result = await model("claude-opus-4-8").generate({ ...ask({ thinkingBudget: 16_384 }), stream: false });
    expect(server.requests[0]).toMatchObject({ stream: true, maxTokens: 400 + 32_768, refused: undefined });
    expect(result.object).toEqual(valid);
  });
});

describe("createAnthropicModel prompt caching", () => {
  const history: GenerateOptions["messages"] = [
    { role: "user", content: "Step 1: list the materials." },
    { role: "assistant", content: '{"steps":["buy pine boards"]}' },
    { role: "user", content: "Step 2: list the tools." },
    { role: "assistant", content: '{"steps":["saw","drill"]}', cache: true },
  ];
  const prompt = { role: "user" as const, content: "Step 3: plan the cuts." };

  type Block = { type: string; text: string; cache_control?: unknown };
  const breakpointsOf = (body: Record<string, unknown>) => {
    const marked: string[] = [];
    for (const block of (body["system"] as Block[] | undefined) ?? []) if (block.cache_control) marked.push(`system`);
    (body["messages"] as Array<{ content: string | Block[] }>).forEach((message, index) => {
      if (typeof message.content === "string") return;
      for (const block of message.content) if (block.cache_control) marked.push(`message ${index}`);
    });
    return marked;
  };

  it("puts a breakpoint on the system block and on the last marked history message, none on the prompt", async () => {
    server.setRespond({ object: valid });
    await model().generate(ask({ messages: [...history, prompt] }));

    const body = server.requests[0]?.body ?? {};
    expect(breakpointsOf(body)).toEqual(["system", "message 3"]);
    const messages = body["messages"] as Array<{ role: string; content: unknown }>;
    expect(messages[3]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: '{"steps":["saw","drill"]}', cache_control: { type: "ephemeral" } }],
    });
    expect(messages[0]).toEqual({ role: "user", content: "Step 1: list the materials." });
    expect(messages[4]).toEqual({ role: "user", content: "Step 3: plan the cuts." });
    expect(server.requests[0]?.cacheBreakpoints).toBe(2);
  });

  it("never places more than four breakpoints: the system block and the last three marked messages", async () => {
    server.setRespond({ object: valid });
    const everyMessageMarked = Array.from({ length: 8 }, (_, index) => ({
      role: index % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `history ${index}`,
      cache: true,
    }));
    await model().generate(ask({ messages: [...everyMessageMarked, prompt] }));
    expect(breakpointsOf(server.requests[0]?.body ?? {})).toEqual(["system", "message 5", "message 6", "message 7"]);

    await model().generate(ask({ system: "", messages: [...everyMessageMarked, prompt] }));
    expect(breakpointsOf(server.requests[1]?.body ?? {})).toEqual(["message 4", "message 5", "message 6", "message 7"]);
  });

  it("keeps the breakpoints in the repair round, with the repair turns after them", async () => {
    server.setRespond([{ object: { steps: [] } }, { object: valid }]);
    await model().generate(ask({ messages: [...history, prompt] }));
    const repair = server.requests[1]?.body ?? {};
    expect(breakpointsOf(repair)).toEqual(["system", "message 3"]);
    expect((repair["messages"] as unknown[]).length).toBe(7);
  });

  it("reads the marked history from the cache on the session's next call, reporting reads and writes in usage", async () => {
    server.setRespond({ object: valid });
    const first = await model().generate(ask({ messages: [...history, prompt] }));
    const answer = { role: "assistant" as const, content: JSON.stringify(valid) };
    const next = { role: "user" as const, content: "Step 4: assemble." };
    const second = await model().generate(
      ask({
        messages: [
          ...history.map(({ role, content }) => ({ role, content })),
          prompt,
          { ...answer, cache: true },
          next,
        ],
      }),
    );

    expect(first.usage.cacheReadTokens).toBe(0);
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
    // Everything the first call wrote (tool, system and four history messages) is read back.
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.usage.inputTokens).toBeGreaterThan(second.usage.cacheReadTokens + second.usage.cacheWriteTokens);
  });

  it("does not mark an empty message (the API rejects empty text blocks)", async () => {
    server.setRespond({ object: valid });
    await model().generate(ask({ messages: [{ role: "user", content: "", cache: true }, prompt] }));
    expect(breakpointsOf(server.requests[0]?.body ?? {})).toEqual(["system"]);
  });
});

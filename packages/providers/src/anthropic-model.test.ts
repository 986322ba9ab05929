import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAnthropicModel } from "./anthropic-model.ts";
import type { GenerateOptions } from "./language-model.ts";
import { createFakeModelServer, type FakeModelServer } from "./testing/index.ts";

/** Anthropic wire specifics: caching, forced tool, thinking, repair through tool_result. */

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

function model() {
  return createAnthropicModel({ apiKey: "test-key", baseURL: server.anthropicBaseURL, modelId: "claude-test", timeoutMs: 10_000, maxRetries: 0 });
}

/** Each case runs twice: answered whole, and streamed. */
let streamed = false;

function ask(overrides: Partial<GenerateOptions<z.infer<typeof planSchema>>> = {}): GenerateOptions<z.infer<typeof planSchema>> {
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

describe.each([false, true])("createAnthropicModel (streamed: %s)", (stream) => {
  beforeEach(() => {
    streamed = stream;
  });

  it("caches the system prompt, forces the answer tool and sends no temperature", async () => {
    server.setRespond({ object: valid });
    await model().generate(ask());

    const body = server.requests[0]?.body ?? {};
    expect(body["system"]).toEqual([{ type: "text", text: "You plan carpentry work.", cache_control: { type: "ephemeral" } }]);
    expect(body["tool_choice"]).toEqual({ type: "tool", name: "plan", disable_parallel_tool_use: true });
    expect(body["tools"]).toMatchObject([{ name: "plan", description: "The plan, step by step.", input_schema: { type: "object", required: ["steps"] } }]);
    expect(body["max_tokens"]).toBe(400);
    expect(body).not.toHaveProperty("temperature");
    expect(body).not.toHaveProperty("thinking");
    expect(server.requests[0]?.path).toBe("/v1/messages");
    expect(server.requests[0]?.stream).toBe(stream);
  });

  it("enables thinking with the budget on top of max_tokens and offers the tool instead of forcing it", async () => {
    server.setRespond({ object: valid });
    const result = await model().generate(ask({ thinkingBudget: 2_000 }));

    const body = server.requests[0]?.body ?? {};
    expect(body["thinking"]).toEqual({ type: "enabled", budget_tokens: 2_000 });
    expect(body["max_tokens"]).toBe(2_400);
    expect(body["tool_choice"]).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(body).not.toHaveProperty("temperature");
    expect(server.requests[0]?.system).toContain("`plan` tool");
    expect(result.object).toEqual(valid);
  });

  it("raises a thinking budget below the API minimum to 1,024", async () => {
    server.setRespond({ object: valid });
    await model().generate(ask({ thinkingBudget: 100 }));
    expect(server.requests[0]?.body["thinking"]).toEqual({ type: "enabled", budget_tokens: 1_024 });
    expect(server.requests[0]?.body["max_tokens"]).toBe(1_424);
  });

  it("accepts a JSON answer in text (fenced) when thinking made the tool optional", async () => {
    server.setRespond({ text: 'Here is the plan:\n```json\n{"steps": ["measure", "cut"]}\n```' });
    const result = await model().generate(ask({ thinkingBudget: 1_500 }));
    expect(result.object).toEqual(valid);
    expect(server.requests).toHaveLength(1);
  });

  it("repairs through a tool_result marked is_error, echoing the thinking and tool_use blocks", async () => {
    server.setRespond([{ object: { steps: [] } }, { object: valid }]);
    const result = await model().generate(ask({ thinkingBudget: 1_024 }));

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

  it("repairs a text answer with a user message when no tool was called", async () => {
    server.setRespond(["no idea", { object: valid }]);
    await model().generate(ask());
    const messages = server.requests[1]?.body["messages"] as Array<{ role: string; content: unknown }>;
    expect(messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "no idea" }] });
    expect(messages[2]?.role).toBe("user");
    expect(String(messages[2]?.content)).toContain("Call the `plan` tool");
  });

  it("omits an empty system prompt (the API rejects empty text blocks)", async () => {
    server.setRespond({ object: valid });
    await model().generate(ask({ system: "  " }));
    expect(server.requests[0]?.body).not.toHaveProperty("system");
  });

  it("reports a structured answer cut off at max_tokens as invalid, with the hint to raise maxTokens", async () => {
    server.setRespond({ text: '{"steps": ["meas', finishReason: "length" });
    const error = await model()
      .generate(ask({ thinkingBudget: 1_024 }))
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "MODEL_OUTPUT_INVALID", hint: expect.stringContaining("maxTokens") });
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
      ask({ messages: [...history.map(({ role, content }) => ({ role, content })), prompt, { ...answer, cache: true }, next] }),
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

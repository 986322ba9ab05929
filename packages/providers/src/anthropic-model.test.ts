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

function ask(overrides: Partial<GenerateOptions<z.infer<typeof planSchema>>> = {}): GenerateOptions<z.infer<typeof planSchema>> {
  return {
    system: "You plan carpentry work.",
    messages: [{ role: "user", content: "Plan a shelf." }],
    schema: planSchema,
    schemaName: "plan",
    schemaDescription: "The plan, step by step.",
    maxTokens: 400,
    temperature: 0.3,
    ...overrides,
  };
}

describe("createAnthropicModel", () => {
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

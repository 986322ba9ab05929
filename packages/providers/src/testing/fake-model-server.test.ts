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

async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown>, headers: response.headers };
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
    expect(server.requests[0]).toMatchObject({ wire: "openai", schemaName: "verdict", structured: "json_schema", system: "System prompt." });
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
    const contents = [first, second, other].map(({ json }) => (json["choices"] as Array<{ message: { content: string } }>)[0]?.message.content);
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
    const message = await anthropic.messages.create({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(message.content).toEqual([{ type: "text", text: "hello", citations: null }]);

    const openai = new OpenAI({ apiKey: "k", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(completion.choices[0]?.message.content).toBe("hello");

    expect(server.environment("anthropic")).toEqual({
      DELIBERATE_PROVIDER: "anthropic",
      ANTHROPIC_API_KEY: expect.any(String),
      ANTHROPIC_BASE_URL: server.url,
    });
    expect(server.environment("openai")).toMatchObject({ DELIBERATE_PROVIDER: "openai", OPENAI_BASE_URL: `${server.url}/v1` });
  });

  it("closes promptly while a delayed reply is pending", async () => {
    const slow = await createFakeModelServer({ respond: { delayMs: 60_000 } });
    const pending = fetch(`${slow.url}/v1/messages`, { method: "POST", body: JSON.stringify(anthropicTool) }).catch((error: unknown) => error);
    while (slow.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await slow.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

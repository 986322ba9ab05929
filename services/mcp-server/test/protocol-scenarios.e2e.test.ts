import { join } from "node:path";
import { type Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer, type HttpServerProcess } from "./support/http-process.ts";
import { startStdioServer, type StdioServer, temporaryDirectory } from "./support/server-process.ts";
import { testClient } from "./support/test-client.ts";

// The conformance suite's (@modelcontextprotocol/conformance) prompt, completion and logging server
// scenarios, against the built server over Streamable HTTP as the suite connects, with the server's
// own prompts in place of the reference server's fixtures (test_simple_prompt,
// test_prompt_with_arguments): the same checks, on what this server offers. See the README.

const directory = temporaryDirectory();
let server: HttpServerProcess;
let client: Client;

beforeAll(async () => {
  // Default toolsets, as a new user runs it.
  server = await startHttpServer(["--http", "--port", "0"], {
    DATABASE_PATH: join(directory.path, "scenarios.db"),
    DELIBERATE_TOOLSETS: "core",
  });
  client = testClient(
    { name: "conformance-test-client", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: {} } },
  );
  await client.connect(new StreamableHTTPClientTransport(server.url));
});
afterAll(async () => {
  await client?.close();
  await server?.stop();
  directory.remove();
});

describe("conformance scenarios: prompts, completion, logging", () => {
  it("prompts-list: every prompt has a name and a description", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.length).toBeGreaterThan(0);
    for (const prompt of prompts) {
      expect(prompt.name).toBeTruthy();
      expect(prompt.description).toBeTruthy();
    }
    // Only prompts whose tool is served: the default toolset has no dialog tools.
    expect(prompts.map((prompt) => prompt.name)).not.toContain("review-document");
  });

  it("prompts-get-simple / prompts-get-with-args: messages with role and content, arguments substituted", async () => {
    const got = await client.getPrompt({
      name: "weigh-evidence",
      arguments: { claim: "testValue1", evidence: "testValue2" },
    });
    expect(got.messages.length).toBeGreaterThan(0);
    for (const message of got.messages) {
      expect(message.role).toBeTruthy();
      expect(message.content).toBeTruthy();
    }
    expect(JSON.stringify(got.messages)).toContain("testValue1");
    expect(JSON.stringify(got.messages)).toContain("testValue2");
  });

  it("prompts/get of an unknown prompt is invalid params (-32602)", async () => {
    const error = await client.getPrompt({ name: "test_simple_prompt" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
  });

  it("completion-complete: a completion with a values array", async () => {
    const result = await client.complete({
      ref: { type: "ref/prompt", name: "run-preset" },
      argument: { name: "preset", value: "de" },
    });
    expect(Array.isArray(result.completion.values)).toBe(true);
    expect(result.completion.values).toEqual(["debug-analysis"]);
  });

  it("logging-set-level: accepted with an empty result; an unknown level is invalid params", async () => {
    expect(client.getServerCapabilities()?.logging).toBeDefined();
    expect(await client.setLoggingLevel("info")).toEqual({});
    const error = await client.setLoggingLevel("loud" as "info").catch((caught: unknown) => caught);
    expect((error as ProtocolError).code).toBe(-32602);
  });
});

describe("logging over stdio, where model-free calls take the fast path", () => {
  const stdioDirectory = temporaryDirectory();
  let stdio: StdioServer;
  const messages: Array<{ level: string; data: unknown }> = [];

  beforeAll(async () => {
    stdio = await startStdioServer({
      DATABASE_PATH: join(stdioDirectory.path, "logging.db"),
      LOG_LEVEL: "info",
      DELIBERATE_TOOLSETS: "core,workflows",
    });
    stdio.client.setNotificationHandler(
      "notifications/message",
      (notification) => void messages.push(notification.params),
    );
  });
  afterAll(async () => {
    await stdio?.close();
    stdioDirectory.remove();
  });

  it("sends nothing before the client asks, then the lines of its calls at its level", async () => {
    await stdio.client.callTool({ name: "startWorkflow", arguments: { workflow: "before-asking" } });
    expect(messages).toEqual([]);
    await stdio.client.setLoggingLevel("info");
    const failed = await stdio.client.callTool({ name: "startWorkflow", arguments: { workflow: "after-asking" } });
    expect(failed.isError).toBe(true);
    expect(messages.map((message) => message.data)).toEqual([
      expect.objectContaining({ level: "info", message: "tool call failed", tool: "startWorkflow" }),
    ]);
    expect(JSON.stringify(messages)).toContain("after-asking");
    await stdio.client.setLoggingLevel("error");
    await stdio.client.callTool({ name: "startWorkflow", arguments: { workflow: "below-the-level" } });
    expect(JSON.stringify(messages)).not.toContain("below-the-level");
  });
});

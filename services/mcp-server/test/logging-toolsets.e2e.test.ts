import { dialogModule } from "@deliberate/dialog";
import { createEngine, type DeliberateEngine, hostModelRouter } from "@deliberate/engine";
import { testStorePlace } from "@deliberate/engine/testing";
import { createKnowledgeGraphModule } from "@deliberate/knowledge-graph";
import { reasoningModule } from "@deliberate/reasoning";
import { openStore, type Store } from "@deliberate/store";
import { InMemoryTransport, type LoggingMessageNotification } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, createToolCallFastPath } from "../src/create-server.ts";
import { createLogMirror } from "../src/log-mirror.ts";
import { createLogger, createSecretRegistry } from "../src/logger.ts";
import { defaultToolsets, selectTools } from "../src/toolsets.ts";
import { testClient } from "./support/test-client.ts";

const secret = "sk-ant-test-0123456789abcdef";

/** The model-facing size of tools/list: names, descriptions and input schemas, as JSON. */
function modelFacingChars(tools: Array<{ name: string; description?: string; inputSchema: unknown }>): number {
  return tools.reduce(
    (sum, tool) =>
      sum + JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }).length,
    0,
  );
}

describe("logging mirrored to the client, and toolsets", () => {
  let store: Store;
  let engine: DeliberateEngine;
  const stderrLines: string[] = [];
  const connect = async (options: { toolsets?: readonly string[]; mirror?: boolean } = {}) => {
    const mirror = createLogMirror();
    const logger = createLogger({
      level: "debug",
      secrets: createSecretRegistry([secret]),
      sinks: [(line) => void stderrLines.push(line), mirror.sink],
    });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await createServer({
      engine,
      logger,
      sessions: engine,
      ...(options.mirror === false ? {} : { logMirror: mirror }),
      ...(options.toolsets ? { toolsets: options.toolsets } : {}),
    }).connect(serverSide);
    const client = testClient({ name: "logging", version: "1.0.0" });
    const messages: LoggingMessageNotification["params"][] = [];
    client.setNotificationHandler("notifications/message", (notification) => void messages.push(notification.params));
    await client.connect(clientSide);
    return { client, messages };
  };

  beforeAll(async () => {
    const modules = [reasoningModule, dialogModule, createKnowledgeGraphModule({})];
    store = await openStore({ ...(await testStorePlace()), modules });
    engine = createEngine({ store, modules, models: hostModelRouter });
  });
  afterAll(async () => {
    await store?.close();
  });

  it("sends the server's log lines of a call to its client at the level it set, secrets scrubbed as on stderr", async () => {
    const { client, messages } = await connect({ toolsets: ["all"] });
    expect(client.getServerCapabilities()?.logging).toBeDefined();
    await client.setLoggingLevel("info");
    const failed = await client.callTool({ name: "startWorkflow", arguments: { workflow: secret } });
    expect(failed.isError).toBe(true);
    const line = messages.find((message) => (message.data as { message?: string }).message === "tool call failed");
    expect(line, JSON.stringify(messages)).toBeDefined();
    expect(line?.level).toBe("info");
    expect(line?.logger).toBe("deliberate");
    expect(JSON.stringify(line?.data)).toContain("[redacted]");
    expect(JSON.stringify(messages)).not.toContain(secret);
    expect(stderrLines.join("")).not.toContain(secret);
    // "tool call succeeded" is a debug line: below the level the client set.
    await client.callTool({ name: "listWorkflows", arguments: {} });
    expect(messages.some((message) => (message.data as { message?: string }).message === "tool call succeeded")).toBe(
      false,
    );
    await client.setLoggingLevel("debug");
    await client.callTool({ name: "listWorkflows", arguments: {} });
    expect(
      messages.some(
        (message) =>
          message.level === "debug" && (message.data as { message?: string }).message === "tool call succeeded",
      ),
    ).toBe(true);
    await client.close();
  });

  it("sends nothing to a client that did not ask for log lines", async () => {
    const { client, messages } = await connect({ toolsets: ["all"] });
    await client.callTool({ name: "startWorkflow", arguments: { workflow: "nobody-asked" } });
    await client.callTool({ name: "listWorkflows", arguments: {} });
    expect(messages).toEqual([]);
    await client.close();
  });

  it("sends one client's lines only to that client", async () => {
    const first = await connect({ toolsets: ["all"] });
    const second = await connect({ toolsets: ["all"] });
    await first.client.setLoggingLevel("debug");
    await second.client.setLoggingLevel("debug");
    await first.client.callTool({ name: "startWorkflow", arguments: { workflow: "only-the-first-client" } });
    expect(JSON.stringify(first.messages)).toContain("only-the-first-client");
    expect(JSON.stringify(second.messages)).not.toContain("only-the-first-client");
    await first.client.close();
    await second.client.close();
  });

  it("refuses an unknown level as invalid params, naming the levels", async () => {
    const { client } = await connect({ toolsets: ["all"] });
    const error = (await client.setLoggingLevel("loud" as "info").catch((caught: unknown) => caught)) as {
      code?: number;
      message?: string;
    };
    expect(error.code, error.message).toBe(-32602);
    expect(error.message).toMatch(/level: use one of debug, info, notice, warning, error/);
    await client.close();
  });

  it("offers no logging capability without a mirror", async () => {
    const { client } = await connect({ mirror: false });
    expect(client.getServerCapabilities()?.logging).toBeUndefined();
    await client.close();
  });

  it("lists and serves only the chosen toolsets' tools, with reasoning_submit alongside model-backed ones", async () => {
    const { client } = await connect({ toolsets: ["knowledge-graph"] });
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(["reasoning_end_session", "reasoning_execute_task", "reasoning_submit"]);
    await expect(client.callTool({ name: "reasoning_linear", arguments: { content: "x" } })).rejects.toThrow(
      /Tool reasoning_linear not found/,
    );
    // Prompts lead only to served tools.
    const prompts = await client.listPrompts().then(
      (listed) => listed.prompts,
      () => [],
    );
    expect(prompts.map((prompt) => prompt.name)).not.toContain("decide");
    await client.close();
  });

  it("the stdio fast path answers only served tools", async () => {
    const fastPath = createToolCallFastPath({ engine, toolsets: ["knowledge-graph"] });
    const call = (name: string) =>
      fastPath({ name, arguments: {}, cancellation: new AbortController() } as unknown as Parameters<
        typeof fastPath
      >[0]);
    expect(call("listWorkflows")).toBeUndefined();
    const everything = createToolCallFastPath({ engine, toolsets: ["all"] });
    expect(
      everything({ name: "listWorkflows", arguments: {}, cancellation: new AbortController() } as unknown as Parameters<
        typeof fastPath
      >[0]),
    ).toBeDefined();
    // Once a client asks for log lines, calls go through the server, which can send them.
    let listening = false;
    const polite = createToolCallFastPath({ engine, toolsets: ["all"], stepAside: () => listening });
    const listWorkflows = () =>
      polite({ name: "listWorkflows", arguments: {}, cancellation: new AbortController() } as unknown as Parameters<
        typeof fastPath
      >[0]);
    expect(listWorkflows()).toBeDefined();
    listening = true;
    expect(listWorkflows()).toBeUndefined();
  });

  it("refuses unknown toolset names, naming the variable and the toolsets there are", () => {
    expect(() => selectTools(engine, ["core", "graphs"])).toThrow(
      /DELIBERATE_TOOLSETS names unknown toolset "graphs"\. Available: .*core.*analysis.*workflows.*dialog.*knowledge-graph.*all/,
    );
    expect(selectTools(engine, ["all"]).size).toBe(engine.tools.length);
  });

  it("keeps every tool in exactly one toolset", () => {
    const placed = [...engine.toolsets.values()].flat();
    expect(new Set(placed).size).toBe(placed.length);
    expect(new Set([...placed, "reasoning_submit"])).toEqual(new Set(engine.tools.map((tool) => tool.name)));
  });

  it("keeps the default toolset's model-facing tools/list within its context budget", async () => {
    const { client: all } = await connect({ toolsets: ["all"] });
    const { client: chosen } = await connect({ toolsets: defaultToolsets });
    const everything = modelFacingChars((await all.listTools()).tools);
    const served = (await chosen.listTools()).tools;
    const size = modelFacingChars(served);
    // Budget 16,000 characters (about 4.6k tokens at the ~3.5 characters per token of this JSON); see the README.
    console.info(
      `tools/list model-facing size: default (${defaultToolsets.join(",")}) ${served.length} tools, ${size} chars; all ${everything} chars`,
    );
    expect(size).toBeLessThanOrEqual(16_000);
    expect(size).toBeLessThan(everything / 2);
    await all.close();
    await chosen.close();
  });
});

import { PassThrough } from "node:stream";
import { DeliberateError, defineTool, parseInput, type ToolDefinition } from "@deliberate/contracts";
import type { Engine, InvokeOptions } from "@deliberate/engine";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, createToolCallFastPath } from "./create-server.ts";
import { silentLogger } from "./logger.ts";
import { LazyAbort } from "./lazy-abort.ts";
import { type RunningTransport, startStdioTransport } from "./stdio-transport.ts";

const annotations = {
  title: "T",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const echoTool = defineTool({
  name: "echo_things",
  description: "Echoes, fails or waits to be cancelled; no model.",
  inputSchema: z.object({ text: z.string(), mode: z.enum(["echo", "fail", "wait"]).default("echo") }),
  outputSchema: z.object({ text: z.string() }),
  annotations,
  operations: [],
  usesModel: false,
});
const modelTool = defineTool({
  name: "ask_model",
  description: "Would ask a model.",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string() }),
  annotations,
  operations: [],
  usesModel: true,
});

const guidedTool = defineTool({
  name: "guided_echo",
  description: "Echoes with instructions for the host (a guided workflow's output).",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string(), agent_instructions: z.string() }),
  annotations,
  operations: [],
  usesModel: false,
});

/** A small engine: records how each call arrived (the SDK's tool handler passes `models`-free options too). */
function fakeEngine() {
  const calls: Array<{ tool: string; options: InvokeOptions }> = [];
  const aborted: string[] = [];
  const engine: Engine = {
    tools: [echoTool as ToolDefinition, modelTool as ToolDefinition, guidedTool as ToolDefinition],
    async invoke(tool, rawArguments, options = {}) {
      calls.push({ tool, options });
      if (tool === guidedTool.name) {
        const { text } = parseInput(guidedTool.inputSchema, rawArguments ?? {}, tool);
        const output = { text, agent_instructions: `Next, say ${text}.` };
        options.onOutput?.(output);
        return output;
      }
      const input = parseInput(echoTool.inputSchema.partial({ mode: true }), rawArguments ?? {}, tool);
      if (input.mode === "fail")
        throw new DeliberateError({
          code: "CONFLICT",
          message: "No.",
          issues: [{ field: "text", message: "refused" }],
        });
      if (input.mode === "wait") {
        await new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve()));
        aborted.push(input.text);
        throw new DeliberateError({ code: "CANCELLED", message: "The call was cancelled." });
      }
      return { text: input.text };
    },
  };
  return { engine, calls, aborted };
}

interface Wire {
  send(message: Record<string, unknown>): void;
  next(id: number): Promise<Record<string, unknown>>;
  received: Array<Record<string, unknown>>;
}

const running: RunningTransport[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((transport) => transport.close()));
});

function serve(engine: Engine): Wire {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  running.push(
    startStdioTransport({
      createServer: () => createServer({ engine }),
      logger: silentLogger,
      onClosed: () => {},
      fastPath: createToolCallFastPath({ engine }),
      stdin,
      stdout,
    }),
  );
  const received: Array<Record<string, unknown>> = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let buffered = "";
  stdout.setEncoding("utf8");
  stdout.on("data", (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>;
      buffered = buffered.slice(newline + 1);
      received.push(message);
      if (typeof message["id"] === "number") waiting.get(message["id"])?.(message);
    }
  });
  return {
    received,
    send: (message) => stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`),
    next: (id) =>
      new Promise((resolve) => {
        const found = received.find((message) => message["id"] === id);
        if (found) resolve(found);
        else waiting.set(id, resolve);
      }),
  };
}

async function handshake(wire: Wire): Promise<void> {
  wire.send({
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "0" } },
  });
  await wire.next(1);
  wire.send({ method: "notifications/initialized" });
}

describe("stdio fast path", () => {
  it("answers a model-free call itself with the result the SDK gives for the same call", async () => {
    const { engine, calls } = fakeEngine();
    const wire = serve(engine);
    await handshake(wire);
    wire.send({ id: 2, method: "tools/call", params: { name: "echo_things", arguments: { text: "hi" } } });
    // A progress token sends the same call through the SDK's tool handler.
    wire.send({
      id: 3,
      method: "tools/call",
      params: { name: "echo_things", arguments: { text: "hi" }, _meta: { progressToken: "p" } },
    });
    const [fast, sdk] = [await wire.next(2), await wire.next(3)];
    expect(fast["result"]).toEqual({
      content: [{ type: "text", text: '{"text":"hi"}' }],
      structuredContent: { text: "hi" },
    });
    expect(fast["result"]).toEqual(sdk["result"]);
    // The fast path passes no progress callback; the SDK's handler does.
    expect(calls.map((call) => call.options.progress === undefined)).toEqual([true, false]);

    wire.send({ id: 4, method: "tools/call", params: { name: "echo_things", arguments: { text: "x", mode: "fail" } } });
    wire.send({
      id: 5,
      method: "tools/call",
      params: { name: "echo_things", arguments: { text: "x", mode: "fail" }, _meta: { progressToken: "q" } },
    });
    const [fastError, sdkError] = [await wire.next(4), await wire.next(5)];
    expect(fastError["result"]).toMatchObject({ isError: true });
    expect(fastError["result"]).toEqual(sdkError["result"]);

    // Answered from onOutput, with the host's instructions in _meta, as the SDK's handler answers it.
    wire.send({ id: 12, method: "tools/call", params: { name: "guided_echo", arguments: { text: "go" } } });
    wire.send({
      id: 13,
      method: "tools/call",
      params: { name: "guided_echo", arguments: { text: "go" }, _meta: { progressToken: "g" } },
    });
    const [fastGuided, sdkGuided] = [await wire.next(12), await wire.next(13)];
    expect(fastGuided["result"]).toMatchObject({ _meta: { agentInstructions: "Next, say go." } });
    expect(fastGuided["result"]).toEqual(sdkGuided["result"]);
  });

  it("leaves model-backed calls, unknown tools and calls before the handshake to the SDK", async () => {
    const { engine, calls } = fakeEngine();
    const wire = serve(engine);
    // Before initialize the SDK answers (it refuses or routes the call itself); the fast path is not used.
    wire.send({ id: 7, method: "tools/call", params: { name: "echo_things", arguments: { text: "early" } } });
    await wire.next(7);
    const before = calls.length;
    await handshake(wire);
    wire.send({ id: 8, method: "tools/call", params: { name: "ask_model", arguments: { text: "q" } } });
    wire.send({ id: 9, method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
    const [model, unknown] = [await wire.next(8), await wire.next(9)];
    expect(model["result"]).toMatchObject({ structuredContent: { text: "q" } });
    // The SDK's own answer for an unknown tool (not the engine's).
    expect(JSON.stringify(unknown)).toContain("no_such_tool");
    expect(calls.slice(before).map((call) => call.tool)).toEqual(["ask_model"]);
    // Only the SDK's handler hands the engine the request's signal wrapped in its context; both pass one.
    expect(calls.every((call) => call.options.signal instanceof AbortSignal)).toBe(true);
  });

  it("aborts a fast-path call the client cancels, and sends no answer for it", async () => {
    const { engine, aborted } = fakeEngine();
    const wire = serve(engine);
    await handshake(wire);
    wire.send({
      id: 10,
      method: "tools/call",
      params: { name: "echo_things", arguments: { text: "slow", mode: "wait" } },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    wire.send({ method: "notifications/cancelled", params: { requestId: 10, reason: "user" } });
    wire.send({ id: 11, method: "tools/call", params: { name: "echo_things", arguments: { text: "after" } } });
    expect((await wire.next(11))["result"]).toMatchObject({ structuredContent: { text: "after" } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(aborted).toEqual(["slow"]);
    expect(wire.received.some((message) => message["id"] === 10)).toBe(false);
  });
});

/** An engine that answers through `onOutput`, then holds its promise until released (as recording the row would). */
function earlyAnsweringEngine() {
  const releases: Array<(outcome: "resolve" | "reject") => void> = [];
  const engine: Engine = {
    tools: [echoTool as ToolDefinition],
    invoke(_tool, rawArguments, options = {}) {
      const { text } = rawArguments as { text: string };
      const output = { text };
      options.onOutput?.(output);
      return new Promise((resolve, reject) =>
        releases.push((outcome) =>
          outcome === "resolve" ? resolve(output) : reject(new Error("recording the invocation failed")),
        ),
      );
    },
  };
  return { engine, releases };
}

describe("stdio fast path answering from onOutput", () => {
  it("writes the answer as soon as the output is handed over, before invoke settles, and only once", async () => {
    const { engine, releases } = earlyAnsweringEngine();
    const wire = serve(engine);
    await handshake(wire);
    wire.send({ id: 2, method: "tools/call", params: { name: "echo_things", arguments: { text: "early" } } });
    // Answered while the engine's promise is still pending (it has not been released).
    expect((await wire.next(2))["result"]).toEqual({
      content: [{ type: "text", text: '{"text":"early"}' }],
      structuredContent: { text: "early" },
    });
    expect(releases).toHaveLength(1);
    releases[0]?.("resolve");
    wire.send({ id: 3, method: "tools/call", params: { name: "echo_things", arguments: { text: "next" } } });
    expect((await wire.next(3))["result"]).toMatchObject({ structuredContent: { text: "next" } });
    expect(wire.received.filter((message) => message["id"] === 2)).toHaveLength(1);
    releases[1]?.("resolve");
  });

  it("keeps the answer it wrote when the call fails afterwards (its row could not be recorded)", async () => {
    const { engine, releases } = earlyAnsweringEngine();
    const wire = serve(engine);
    await handshake(wire);
    wire.send({ id: 4, method: "tools/call", params: { name: "echo_things", arguments: { text: "kept" } } });
    expect((await wire.next(4))["result"]).toMatchObject({ structuredContent: { text: "kept" } });
    releases[0]?.("reject");
    // The server goes on; the failed call is not answered a second time.
    wire.send({ id: 5, method: "tools/call", params: { name: "echo_things", arguments: { text: "after" } } });
    expect((await wire.next(5))["result"]).toMatchObject({ structuredContent: { text: "after" } });
    releases[1]?.("resolve");
    expect(wire.received.filter((message) => message["id"] === 4)).toEqual([
      expect.objectContaining({ result: expect.objectContaining({ structuredContent: { text: "kept" } }) }),
    ]);
  });
});

describe("LazyAbort", () => {
  it("makes its signal when first read, already aborted with the reason of a cancel that came first", () => {
    const early = new LazyAbort();
    expect(early.aborted).toBe(false);
    const reason = new Error("cancelled by the client");
    early.abort(reason);
    early.abort(new Error("a second cancel"));
    expect(early.aborted).toBe(true);
    expect(early.signal.aborted).toBe(true);
    expect(early.signal.reason).toBe(reason);

    const read = new LazyAbort();
    const signal = read.signal;
    expect(signal.aborted).toBe(false);
    read.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(read.signal).toBe(signal);
  });
});

import { connect as connectSocket } from "node:net";
import { PassThrough } from "node:stream";
import { defineTool, parseInput, type ToolDefinition } from "@deliberate/contracts";
import type { Engine } from "@deliberate/engine";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { HttpTransportConfig } from "./config.ts";
import { createServer } from "./create-server.ts";
import { startHttpTransport, type RunningHttpTransport } from "./http-transport.ts";
import { createLogger } from "./logger.ts";
import { startStdioTransport, type RunningTransport } from "./stdio-transport.ts";

const noteTool = defineTool({
  name: "take_note",
  description: "Stores a note with metadata.",
  inputSchema: z.object({ note: z.string(), metadata: z.record(z.string(), z.unknown()).optional() }),
  outputSchema: z.object({ stored: z.boolean() }),
  annotations: {
    title: "Take Note",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

const calls: unknown[] = [];
const engine: Engine = {
  tools: [noteTool as ToolDefinition],
  async invoke(tool, rawArguments) {
    parseInput(noteTool.inputSchema, rawArguments, tool);
    calls.push(rawArguments);
    return { stored: true };
  },
};
const logger = createLogger({ level: "error", sinks: [() => {}] });
const build = () => createServer({ engine, logger });

/** `{"a":{"a":…"bottom"…}}` nested `depth` deep, as JSON text (JSON.stringify itself overflows on such values). */
function nestedJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}"bottom"${"}".repeat(depth)}`;
}

/** A tools/call of take_note whose metadata is nested `depth` deep, as one JSON text. */
function noteCall(id: number, depth: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"take_note","arguments":{"note":"n","metadata":${nestedJson(depth)}}}}`;
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};

const running: RunningTransport[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((transport) => transport.close()));
  calls.length = 0;
});

describe("stdio transport", () => {
  function start() {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answers: Array<{
      id: unknown;
      error?: { code: number; message: string; data?: { issues?: Array<{ field: string }> } };
      result?: unknown;
    }> = [];
    let pending = "";
    stdout.setEncoding("utf8");
    stdout.on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) answers.push(JSON.parse(line));
    });
    running.push(
      startStdioTransport({ createServer: build, logger, onClosed: () => {}, stdin, stdout, maxLineBytes: 64 * 1024 }),
    );
    const send = (line: string) => stdin.write(`${line}\n`);
    const answerTo = async (count: number) => {
      while (answers.length < count) await new Promise((resolve) => setTimeout(resolve, 5));
      return answers;
    };
    return { send, answerTo, answers };
  }

  it("answers malformed JSON with -32700 and invalid envelopes with -32600, echoing a readable id", async () => {
    const { send, answerTo } = start();
    send('{"jsonrpc":"2.0","id":1,"method":"initialize"');
    send('{"jsonrpc":"1.0","id":"abc","method":"tools/list"}');
    send('{"jsonrpc":"2.0","id":7,"method":42}');
    send('[{"jsonrpc":"2.0","id":8,"method":"ping"}]');
    send('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"not an object"}');
    send(""); // a blank line is not a message
    const answers = await answerTo(5);
    expect(answers.map((answer) => [answer.id, answer.error?.code])).toEqual([
      [null, -32700],
      ["abc", -32600],
      [7, -32600],
      [null, -32600],
      [9, -32600],
    ]);
    expect(answers.map((answer) => answer.error?.data?.issues?.[0]?.field)).toEqual([
      "(message)",
      "jsonrpc",
      "method",
      "(message)",
      "params",
    ]);
    expect(answers[1]?.error?.message).toContain('jsonrpc: must be "2.0"');
  });

  it("keeps serving after refused lines, refuses over-long and too-deep messages naming the field, and never reaches the tool", async () => {
    const { send, answerTo } = start();
    send("not json at all");
    send(JSON.stringify(initialize));
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    send(noteCall(2, 5000));
    send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"${"x".repeat(70 * 1024)}"}}`);
    send(noteCall(4, 10));
    const answers = await answerTo(5);
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    expect(answers[0]).toMatchObject({ id: null, error: { code: -32700 } });
    expect(byId.get(1)?.result).toMatchObject({ serverInfo: { name: "deliberate" } });
    expect(byId.get(2)?.error?.code).toBe(-32600);
    expect(byId.get(2)?.error?.message).toContain("nested deeper than 64 levels");
    expect(byId.get(2)?.error?.data?.issues?.[0]?.field).toBe("params.arguments.metadata.a.a.a.a.a");
    expect(answers.find((answer) => answer.id === null && answer.error?.message.includes("longer than"))).toBeDefined();
    expect(byId.get(4)?.result).toMatchObject({ structuredContent: { stored: true } });
    expect(calls).toHaveLength(1);
  });
});

describe("HTTP transport", () => {
  const config: HttpTransportConfig = {
    kind: "http",
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    allowedHosts: [],
    allowedOrigins: [],
    headersTimeoutMs: 300,
    bodyTimeoutMs: 600,
  };

  async function start(): Promise<RunningHttpTransport> {
    const transport = await startHttpTransport({ config, createServer: build, logger });
    running.push(transport);
    return transport;
  }

  const post = (url: string, body: unknown) =>
    fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  it("refuses JSON nested deeper than the limit with -32600 naming the field, before the tool sees it", async () => {
    const { url } = await start();
    const response = await post(url, noteCall(5, 3000));
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      id: unknown;
      error: { code: number; message: string; data: { issues: Array<{ field: string }> } };
    };
    expect(body.id).toBe(5);
    expect(body.error.code).toBe(-32600);
    expect(body.error.data.issues[0]?.field).toBe("params.arguments.metadata.a.a.a.a.a");
    expect(calls).toHaveLength(0);
    const malformed = await post(url, "{not json");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("throttles repeated wrong tokens per client: 429 with Retry-After, even for the right token", async () => {
    const transport = await startHttpTransport({
      config: { ...config, token: "right-token" },
      createServer: build,
      logger,
      authFailures: { limit: 3, windowMs: 60_000 },
    });
    running.push(transport);
    const attempt = (token: string) =>
      fetch(transport.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await attempt(`wrong-${index}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const right = await attempt("right-token");
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("throttles wrong tokens on the viewer's data endpoints too, counted with /mcp's; its pages stay open", async () => {
    const served: string[] = [];
    const viewer = async (request: Request) => {
      served.push(new URL(request.url).pathname);
      return Response.json({ sessions: [] });
    };
    const transport = await startHttpTransport({
      config: { ...config, token: "right-token" },
      createServer: build,
      logger,
      viewer,
      authFailures: { limit: 3, windowMs: 60_000 },
    });
    running.push(transport);
    const base = new URL(transport.url).origin;
    const data = (token: string) => fetch(`${base}/ui/api/sessions`, { headers: { authorization: `Bearer ${token}` } });
    expect((await data("right-token")).status).toBe(200);
    const statuses: number[] = [];
    for (let index = 0; index < 2; index += 1) statuses.push((await data(`wrong-${index}`)).status);
    const mcpAttempt = await fetch(transport.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: "Bearer wrong-mcp",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    statuses.push(mcpAttempt.status, (await data("wrong-3")).status, (await data("right-token")).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // The page itself holds no data and needs no token; the refused data requests never reached the viewer.
    expect((await fetch(`${base}/ui`)).status).toBe(200);
    expect(served).toEqual(["/ui/api/sessions", "/ui"]);
  });

  it("drops clients that send headers or a body too slowly (408, connection closed)", async () => {
    const { port } = await start();
    const slow = (chunks: string[]) =>
      new Promise<{ received: string; closed: boolean }>((resolve) => {
        const socket = connectSocket(port, "127.0.0.1");
        let received = "";
        socket.setEncoding("utf8");
        socket.on("data", (chunk: string) => {
          received += chunk;
        });
        socket.on("close", () => resolve({ received, closed: true }));
        socket.on("error", () => {});
        socket.write(chunks[0] ?? "");
        // The rest never arrives in time; the server must not wait for it.
        const timer = setTimeout(() => {
          socket.destroy();
          resolve({ received, closed: false });
        }, 20_000);
        socket.on("close", () => clearTimeout(timer));
      });
    const [headers, body] = await Promise.all([
      slow(["POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"]),
      slow([
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"jsonrpc":',
      ]),
    ]);
    expect(headers.closed).toBe(true);
    expect(body.closed).toBe(true);
    expect(body.received).toContain("408");
  }, 30_000);
});

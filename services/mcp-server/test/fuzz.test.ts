import { spawn } from "node:child_process";
import { once } from "node:events";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { hostModelRouter } from "@deliberate/engine";
import { testServerEnvironment, testStorePlace } from "@deliberate/engine/testing";
import { openStore } from "@deliberate/store";
import { countDataRows } from "@deliberate/store/testing";
import { afterAll, describe, expect, it } from "vitest";
import { createServer } from "../src/create-server.ts";
import { startHttpTransport } from "../src/http-transport.ts";
import { createLogger } from "../src/logger.ts";
import {
  generateBadMessages,
  type FuzzMessage,
  type JsonRpcAnswer,
  type ListedTool,
  namedField,
} from "./support/fuzz-messages.ts";
import { builtServer, temporaryDirectory } from "./support/server-process.ts";
import { createComposedEngine } from "./support/test-engine.ts";

// A bounded fuzz of both MCP transports: a few thousand generated bad messages
// per surface, from a fixed seed and from a random one (printed; set
// FUZZ_SEED to replay it). Every message must be answered, every error must
// name a field, the server must not crash, and no rejected call may write a row.

const fixedSeed = 20_261_122;
const randomSeed = Number(process.env["FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31));
const perSeed = Number(process.env["FUZZ_MESSAGES"] ?? 1500);
// Each HTTP request builds a server (stateless serving): fewer of them keep the suite fast.
const perSeedHttp = Number(process.env["FUZZ_MESSAGES"] ?? 1000);
const directory = temporaryDirectory();
let socketRetries = 0;
afterAll(() => directory.remove());

/** Checks one answer against its message: answered as the kind requires, naming a field. */
function check(message: FuzzMessage, answer: JsonRpcAnswer | undefined, problems: string[]): void {
  const describe = `${message.kind} ${message.text.slice(0, 160)}`;
  if (!answer) {
    problems.push(`no answer: ${describe}`);
    return;
  }
  const refused = answer.error !== undefined || answer.result?.isError === true;
  if (!refused) {
    problems.push(`accepted: ${describe} -> ${JSON.stringify(answer).slice(0, 200)}`);
    return;
  }
  const expectedCodes: Partial<Record<FuzzMessage["kind"], number[]>> = {
    "malformed-json": [-32700],
    "bad-envelope": [-32600],
    "not-an-object": [-32600],
    "too-deep": [-32600],
    "unknown-method": [-32601],
    "bad-params": [-32602],
    "unknown-resource": [-32602],
  };
  const codes = expectedCodes[message.kind];
  if (codes && !codes.includes(answer.error?.code ?? 0))
    problems.push(`code ${answer.error?.code} (wanted ${codes.join("/")}): ${describe}`);
  if (message.kind === "bad-arguments" && !answer.result?.content?.[0]?.text?.includes('"INVALID_INPUT"'))
    problems.push(`not INVALID_INPUT: ${describe}`);
  if (namedField(answer) === undefined)
    problems.push(`names no field: ${describe} -> ${JSON.stringify(answer).slice(0, 300)}`);
}

function report(surface: string, messages: FuzzMessage[], problems: string[], started: number): void {
  const kinds: Record<string, number> = {};
  for (const message of messages) kinds[message.kind] = (kinds[message.kind] ?? 0) + 1;
  console.log(
    `[fuzz] ${surface}: ${messages.length} messages (seeds ${fixedSeed} fixed, ${randomSeed} random; replay with FUZZ_SEED=${randomSeed}), ` +
      `${problems.length} problems, ${Date.now() - started} ms; ${JSON.stringify(kinds)}`,
  );
}

describe("fuzz: MCP over stdio", () => {
  it("answers every bad line, naming a field, without crashing or writing", { timeout: 300_000 }, async () => {
    const started = Date.now();
    console.log(
      `[fuzz] MCP stdio: seeds ${fixedSeed} fixed, ${randomSeed} random (replay with FUZZ_SEED=${randomSeed})`,
    );
    const databasePath = join(directory.path, "fuzz-stdio.db");
    const env = await testServerEnvironment({
      PATH: process.env["PATH"] ?? "",
      LOG_LEVEL: "error",
      DATABASE_PATH: databasePath,
      DELIBERATE_TOOLSETS: "all",
    });
    const child = spawn(process.execPath, [builtServer], { env, stdio: ["pipe", "pipe", "pipe"] });
    const answers: JsonRpcAnswer[] = [];
    /** Anything on stdout that is not a JSON-RPC line (stdout must carry nothing else). */
    const notJson: string[] = [];
    let pending = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    let wake: () => void = () => {};
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) {
        try {
          answers.push(JSON.parse(line) as JsonRpcAnswer);
        } catch {
          notJson.push(line.slice(0, 300));
        }
      }
      wake();
    });
    const until = async (count: number) => {
      const deadline = Date.now() + 60_000;
      while (answers.length < count && Date.now() < deadline)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
    };
    const write = (line: string) => child.stdin.write(`${line}\n`);

    write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "fuzz", version: "0" } },
      }),
    );
    await until(1);
    write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    await until(2);
    const tools = (
      (answers.find((answer) => answer.id === 2)?.result as unknown as { tools: ListedTool[] }) ?? { tools: [] }
    ).tools;
    expect(tools.length).toBeGreaterThan(10);
    answers.length = 0;

    const messages = [
      ...generateBadMessages({ seed: fixedSeed, count: perSeed, firstId: 1000, tools }),
      ...generateBadMessages({ seed: randomSeed, count: perSeed, firstId: 1000 + perSeed, tools }),
    ];
    for (const message of messages) write(message.text);
    await until(messages.length);
    // Then a real call still works: the server survived.
    write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
    await until(messages.length + 1);

    child.stdin.end();
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [exitCode] = (await once(child, "close")) as [number | null];
    clearTimeout(killer);
    const byId = new Map(
      answers.filter((answer) => typeof answer.id === "number").map((answer) => [answer.id as number, answer]),
    );
    const anonymous = answers.filter((answer) => answer.id === null);
    const problems: string[] = [];
    let anonymousIndex = 0;
    for (const message of messages)
      check(message, message.id === null ? anonymous[anonymousIndex++] : byId.get(message.id), problems);
    report("MCP stdio", messages, problems, started);

    expect(notJson).toEqual([]);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(answers.length).toBe(messages.length + 1);
    expect(byId.get(3)).toMatchObject({ result: {} });
    expect(exitCode, stderr.slice(-2000)).toBe(0);
    const store = await openStore(await testStorePlace(databasePath));
    try {
      const rows = await countDataRows(store);
      expect(Object.entries(rows).filter(([, count]) => count > 0)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe("fuzz: MCP over Streamable HTTP", () => {
  it("answers every bad request, naming a field, without crashing or writing", { timeout: 300_000 }, async () => {
    const started = Date.now();
    const { engine, store } = await createComposedEngine(hostModelRouter);
    const logger = createLogger({ level: "error", sinks: [() => {}] });
    const http = await startHttpTransport({
      config: {
        kind: "http",
        host: "127.0.0.1",
        port: 0,
        token: undefined,
        allowedHosts: [],
        allowedOrigins: [],
        headersTimeoutMs: 10_000,
        bodyTimeoutMs: 30_000,
      },
      createServer: () => createServer({ engine, logger, sessions: engine }),
      logger,
    });
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    // node:http with a keep-alive agent (16 sockets, as many as requests in flight): the fuzz is about the
    // server, and fetch's client side (web streams) cost more CPU than the server it was fuzzing.
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const send = (body: string) =>
      new Promise<{ status: number; text: string }>((resolve, reject) => {
        const outgoing = request(
          http.url,
          { method: "POST", headers: { ...headers, "content-length": Buffer.byteLength(body) }, agent },
          (incoming) => {
            let text = "";
            incoming.setEncoding("utf8");
            incoming.on("data", (chunk: string) => (text += chunk));
            incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, text }));
            incoming.on("error", reject);
          },
        );
        outgoing.on("error", reject);
        outgoing.end(body);
      });
    const post = async (body: string): Promise<{ status: number; answer: JsonRpcAnswer | undefined }> => {
      let response: { status: number; text: string };
      try {
        response = await send(body);
      } catch (error) {
        // A keep-alive socket the server closes as the client reuses it (a race under heavy load): once more on a new one.
        if ((error as { code?: string }).code !== "ECONNRESET") throw error;
        socketRetries += 1;
        response = await send(body);
      }
      const { text } = response;
      const json = text.startsWith("{")
        ? text
        : text
            .split("\n")
            .find((line) => line.startsWith("data: "))
            ?.slice(6);
      return { status: response.status, answer: json ? (JSON.parse(json) as JsonRpcAnswer) : undefined };
    };
    try {
      const listed = await post(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
      const tools = (listed.answer?.result as unknown as { tools?: ListedTool[] } | undefined)?.tools ?? [];
      expect(tools.length).toBeGreaterThan(10);
      const messages = [
        ...generateBadMessages({ seed: fixedSeed, count: perSeedHttp, firstId: 1000, tools, allowBatches: false }),
        ...generateBadMessages({
          seed: randomSeed,
          count: perSeedHttp,
          firstId: 1000 + perSeedHttp,
          tools,
          allowBatches: false,
        }),
      ];
      const problems: string[] = [];
      // A few at a time, as concurrent clients would.
      for (let index = 0; index < messages.length; index += 16) {
        const batch = messages.slice(index, index + 16);
        const responses = await Promise.all(batch.map((message) => post(message.text)));
        batch.forEach((message, offset) => {
          const response = responses[offset];
          if (response && response.status >= 500)
            problems.push(`status ${response.status}: ${message.kind} ${message.text.slice(0, 120)}`);
          check(message, response?.answer, problems);
        });
      }
      report(`MCP HTTP (${socketRetries} socket retries)`, messages, problems, started);
      expect(problems.slice(0, 10)).toEqual([]);
      const health = await fetch(new URL("/healthz", http.url));
      expect(health.status).toBe(200);
      const rows = await countDataRows(store);
      expect(Object.entries(rows).filter(([, count]) => count > 0)).toEqual([]);
    } finally {
      agent.destroy();
      await http.close();
      await store.close();
    }
  });
});

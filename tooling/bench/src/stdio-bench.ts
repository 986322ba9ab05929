import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeModelServer } from "@deliberate/providers/testing";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { formatSeries, summarize, type Summary } from "./statistics.ts";

// Issue 17 (a) and (b), goals of issue 30, over stdio, three servers in the same run:
//   deliberate  the built MCP server (services/mcp-server/dist/main.js);
//   peer        the official @modelcontextprotocol/server-sequential-thinking, as a new user runs it;
//   bare        a bare MCP SDK v2 server with one trivial tool (baseline-server.mjs).
// (a) per call: reasoning_checkpoint list on a persisted session (no model call) against the
//     peer's sequentialthinking and the bare echo, calls alternating one by one, through the
//     SDK client; (a') the same calls as raw JSON-RPC lines (the servers' own share: the SDK
//     client's cost, the same for all three, is most of (a));
// (b) cold start: spawn to the initialize response, starts alternating, plus spawn to the
//     tools/list response (the first moment a client can call a tool).

const require = createRequire(import.meta.url);
// STDIO_BENCH_DIST=<folder> measures another build of the MCP server (e.g. an older one copied inside
// services/mcp-server, where its external packages resolve) against the same baselines.
export const serverPath = process.env["STDIO_BENCH_DIST"]
  ? join(process.env["STDIO_BENCH_DIST"], "main.js")
  : fileURLToPath(new URL("../../../services/mcp-server/dist/main.js", import.meta.url));
const bareServerPath = fileURLToPath(new URL("./baseline-server.mjs", import.meta.url));
const peerServerPath = join(
  require.resolve("@modelcontextprotocol/server-sequential-thinking/package.json"),
  "..",
  "dist",
  "index.js",
);

export interface StdioBenchOptions {
  /** Folder for the databases. */
  directory: string;
  calls?: number;
  warmup?: number;
  coldStarts?: number;
}

export interface StdioBenchReport {
  calls: { deliberate: Summary; peer: Summary; bare: Summary };
  lineCalls: { deliberate: Summary; peer: Summary; bare: Summary };
  /** (a') Each server's main-thread CPU per call in µs, over the measured calls; undefined where it cannot be read (not Linux). */
  lineCpu: { deliberate: number; peer: number; bare: number } | undefined;
  initialize: { deliberate: Summary; peer: Summary; bare: Summary };
  toolsList: { deliberate: Summary; peer: Summary; bare: Summary };
}

const basePath = { PATH: process.env["PATH"] ?? "" };

async function connect(script: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "deliberate-bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [script], env, stderr: "ignore" }));
  return client;
}

function assertOk(result: { isError?: boolean; content?: unknown }, what: string): void {
  if (result.isError) throw new Error(`${what} failed: ${JSON.stringify(result.content)}`);
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** A server driven with raw JSON-RPC lines (no SDK client): a request is one line out, its answer one line in. */
interface LineClient {
  request(
    method: string,
    params: Record<string, unknown>,
  ): Promise<{ result?: { isError?: boolean; structuredContent?: Record<string, unknown> }; error?: unknown }>;
  /** Nanoseconds the server's main thread has run so far (Linux /proc/<pid>/schedstat), else undefined. */
  cpuNanoseconds(): number | undefined;
  close(): Promise<void>;
}

/**
 * A process's main-thread CPU time in ns: the first field of /proc/<pid>/schedstat (the thread-group
 * leader, which runs the event loop; V8's helper threads are left out). Unlike wall time it hardly moves
 * with the machine's load. Undefined off Linux.
 */
function mainThreadCpu(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return undefined;
  }
}

async function lineClient(script: string, env: Record<string, string>): Promise<LineClient> {
  const child = spawn(process.execPath, [script], { env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map<number, (message: never) => void>();
  let buffered = "";
  let nextId = 0;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline)) as { id?: number };
      buffered = buffered.slice(newline + 1);
      if (typeof message.id === "number") waiting.get(message.id)?.(message as never);
      waiting.delete(message.id as number);
    }
  });
  const client: LineClient = {
    request: (method, params) =>
      new Promise((resolve) => {
        nextId += 1;
        waiting.set(nextId, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: nextId, method, params })}\n`);
      }),
    cpuNanoseconds: () => mainThreadCpu(child.pid),
    close: async () => {
      child.stdin.end();
      if (child.exitCode === null) await once(child, "exit");
    },
  };
  await client.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "bench", version: "0" },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return client;
}

/** (a') The same three calls as raw lines, alternating one by one; returns each server's latencies. */
async function lineCallSeries(options: {
  env: Record<string, string>;
  sessionId: string;
  calls: number;
  warmup: number;
}) {
  const ours = await lineClient(serverPath, options.env);
  const peer = await lineClient(peerServerPath, basePath);
  const bare = await lineClient(bareServerPath, basePath);
  const series = { deliberate: [] as number[], peer: [] as number[], bare: [] as number[] };
  const clients = { deliberate: ours, peer, bare };
  const cpuAtStart: Partial<Record<keyof typeof clients, number | undefined>> = {};
  let lineCpu: StdioBenchReport["lineCpu"];
  const call = async (client: LineClient, name: string, args: Record<string, unknown>) => {
    const answer = await client.request("tools/call", { name, arguments: args });
    if (answer.error !== undefined || answer.result?.isError)
      throw new Error(`${name} failed: ${JSON.stringify(answer)}`);
  };
  try {
    let thought = 0;
    const work = {
      deliberate: () => call(ours, "reasoning_checkpoint", { operation: "list", session_id: options.sessionId }),
      peer: () => {
        thought += 1;
        return call(peer, "sequentialthinking", {
          thought: `Step ${thought}: check the premise.`,
          thoughtNumber: thought,
          totalThoughts: thought + 1,
          nextThoughtNeeded: true,
        });
      },
      bare: () => call(bare, "echo", { text: "hello" }),
    };
    for (let index = 0; index < options.warmup + options.calls; index += 1) {
      if (index === options.warmup)
        for (const key of ["deliberate", "peer", "bare"] as const) cpuAtStart[key] = clients[key].cpuNanoseconds();
      for (const key of ["deliberate", "peer", "bare"] as const) {
        const elapsed = await timed(work[key]);
        if (index >= options.warmup) series[key].push(elapsed);
      }
    }
    // Per call: everything the server's main thread did over the measured calls (batched writes included).
    const perCall = (key: keyof typeof clients) => {
      const [before, after] = [cpuAtStart[key], clients[key].cpuNanoseconds()];
      return before === undefined || after === undefined ? undefined : (after - before) / 1000 / options.calls;
    };
    const [deliberate, peerCpu, bareCpu] = [perCall("deliberate"), perCall("peer"), perCall("bare")];
    if (deliberate !== undefined && peerCpu !== undefined && bareCpu !== undefined)
      lineCpu = { deliberate, peer: peerCpu, bare: bareCpu };
  } finally {
    await Promise.all([ours.close(), peer.close(), bare.close()]);
  }
  return {
    latency: { deliberate: summarize(series.deliberate), peer: summarize(series.peer), bare: summarize(series.bare) },
    cpu: lineCpu,
  };
}

/** Milliseconds from spawn to the initialize response, and to the tools/list response after it. */
async function coldStart(
  script: string,
  env: Record<string, string>,
): Promise<{ initialize: number; toolsList: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [script], { env, stdio: ["pipe", "pipe", "ignore"] });
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } },
  });
  const times = await new Promise<{ initialize: number; toolsList: number }>((resolve, reject) => {
    let buffered = "";
    let initialize = 0;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (message.id === 1) {
          initialize = performance.now() - started;
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
        } else if (message.id === 2) {
          if (!Array.isArray(message.result?.tools) || message.result.tools.length === 0)
            reject(new Error(`${script}: tools/list listed no tools`));
          resolve({ initialize, toolsList: performance.now() - started });
        }
      }
    });
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}) before answering`)));
  });
  child.stdin.end();
  if (child.exitCode === null) await once(child, "exit");
  return times;
}

/** Runs (a) and (b); throws when the server is not built. */
export async function runStdioBench(options: StdioBenchOptions): Promise<StdioBenchReport> {
  if (!existsSync(serverPath))
    throw new Error(`No built server at ${serverPath}: run \`pnpm bench\` from the repository root (it builds first).`);
  const calls = options.calls ?? 600;
  const warmup = options.warmup ?? 100;
  const coldStarts = options.coldStarts ?? 15;

  // (a) A session with one checkpoint, made through the server itself with a scripted model.
  const fake = await createFakeModelServer({
    respond: { object: { content: "The next step.", confidence: 0.8, next_step: "Check it." } },
  });
  const oursEnv = {
    ...basePath,
    LOG_LEVEL: "warn",
    DATABASE_PATH: join(options.directory, "stdio.db"),
    OPENAI_BASE_URL: fake.openaiBaseURL,
    OPENAI_API_KEY: "bench",
  };
  const ours = await connect(serverPath, oursEnv);
  const peer = await connect(peerServerPath, basePath);
  const bare = await connect(bareServerPath, basePath);
  const series = { deliberate: [] as number[], peer: [] as number[], bare: [] as number[] };
  let sessionId = "";
  try {
    const seeded = await ours.callTool({ name: "reasoning_linear", arguments: { content: "Seed the session." } });
    assertOk(seeded, "seeding");
    sessionId = (seeded.structuredContent as { session_id: string }).session_id;
    assertOk(
      await ours.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "create", session_id: sessionId, name: "bench" },
      }),
      "checkpoint create",
    );
    let thought = 0;
    const work = {
      deliberate: async () =>
        assertOk(
          await ours.callTool({
            name: "reasoning_checkpoint",
            arguments: { operation: "list", session_id: sessionId },
          }),
          "checkpoint list",
        ),
      peer: async () => {
        thought += 1;
        const args = {
          thought: `Step ${thought}: check the premise.`,
          thoughtNumber: thought,
          totalThoughts: thought + 1,
          nextThoughtNeeded: true,
        };
        assertOk(await peer.callTool({ name: "sequentialthinking", arguments: args }), "sequentialthinking");
      },
      bare: async () => assertOk(await bare.callTool({ name: "echo", arguments: { text: "hello" } }), "echo"),
    };
    for (let index = 0; index < warmup + calls; index += 1) {
      // One call each, in turn, so drift and background load hit all three alike.
      for (const key of ["deliberate", "peer", "bare"] as const) {
        const elapsed = await timed(work[key]);
        if (index >= warmup) series[key].push(elapsed);
      }
    }
  } finally {
    await Promise.all([ours.close(), peer.close(), bare.close()]);
  }
  let lineCalls: StdioBenchReport["lineCalls"];
  let lineCpu: StdioBenchReport["lineCpu"];
  try {
    ({ latency: lineCalls, cpu: lineCpu } = await lineCallSeries({ env: oursEnv, sessionId, calls, warmup }));
  } finally {
    await fake.close();
  }

  // (b) The database is created and migrated once, outside the figures.
  const coldEnv = { ...basePath, LOG_LEVEL: "warn", DATABASE_PATH: join(options.directory, "cold.db") };
  await coldStart(serverPath, coldEnv);
  const starts = {
    deliberate: [] as Array<{ initialize: number; toolsList: number }>,
    peer: [] as Array<{ initialize: number; toolsList: number }>,
    bare: [] as Array<{ initialize: number; toolsList: number }>,
  };
  for (let index = 0; index < coldStarts; index += 1) {
    starts.deliberate.push(await coldStart(serverPath, coldEnv));
    starts.peer.push(await coldStart(peerServerPath, basePath));
    starts.bare.push(await coldStart(bareServerPath, basePath));
  }
  const of = (key: keyof typeof starts, field: "initialize" | "toolsList") =>
    summarize(starts[key].map((start) => start[field]));
  return {
    calls: { deliberate: summarize(series.deliberate), peer: summarize(series.peer), bare: summarize(series.bare) },
    lineCalls,
    lineCpu,
    initialize: {
      deliberate: of("deliberate", "initialize"),
      peer: of("peer", "initialize"),
      bare: of("bare", "initialize"),
    },
    toolsList: {
      deliberate: of("deliberate", "toolsList"),
      peer: of("peer", "toolsList"),
      bare: of("bare", "toolsList"),
    },
  };
}

/** (a')'s main-thread CPU per call: a figure the machine's load hardly moves, unlike the latencies. */
function formatCpu(cpu: StdioBenchReport["lineCpu"]): string {
  if (cpu === undefined) return "  main-thread CPU per call: not measured (needs Linux /proc/<pid>/schedstat)";
  const us = (value: number) => `${value.toFixed(1)} µs`;
  return [
    `  main-thread CPU per call (/proc/<pid>/schedstat, over the measured calls): deliberate ${us(cpu.deliberate)}, peer ${us(cpu.peer)}, bare ${us(cpu.bare)}`,
    `  / peer ${(cpu.deliberate / cpu.peer).toFixed(2)}x, / bare ${(cpu.deliberate / cpu.bare).toFixed(2)}x`,
  ].join("\n");
}

/** The report as text, with the goals' ratios. */
export function formatStdioBench(report: StdioBenchReport): string {
  return [
    formatSeries(
      "(a) per call over stdio, SDK v2 client: reasoning_checkpoint list on a persisted session vs sequential-thinking's sequentialthinking vs a bare SDK echo; goal p50 <= 0.9x, p95 <= 1.2x peer",
      report.calls,
      { p50: 0.9, p95: 1.2 },
    ),
    "",
    formatSeries(
      "(a') the same calls as raw JSON-RPC lines (each server's own round trip, no client library)",
      report.lineCalls,
    ),
    formatCpu(report.lineCpu),
    "",
    formatSeries("(b) cold start, spawn to initialize response; goal p50 <= 0.8x peer", report.initialize, 0.8),
    "",
    formatSeries("(b') spawn to tools/list response (the first moment a tool can be called)", report.toolsList),
  ].join("\n");
}

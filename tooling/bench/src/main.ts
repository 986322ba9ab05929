import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFakeModelServer } from "@deliberate/providers/testing";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { formatHttpBench, runHttpBench } from "./http-bench.ts";
import { runDialogBench } from "./dialog-bench.ts";
import { runIssue3Bench } from "./issue3-bench.ts";
import { formatReplicaBench, runReplicaBench } from "./replicas-bench.ts";
import { runKnowledgeGraphBench } from "./knowledge-graph-bench.ts";
import { formatComparison, summarize } from "./statistics.ts";

// Compares the built Deliberate MCP server with a bare SDK v2 server (one
// trivial tool), both over stdio, in the same run:
//   (a) per-call latency: reasoning_checkpoint list (no model call) vs echo;
//   (b) cold start: spawn to initialize response.
// Run with `pnpm bench` at the root (it builds the server first).

const calls = 300;
const warmup = 50;
const rounds = 6; // calls alternate between the servers in rounds, so drift hits both alike
const coldStarts = 15;

const serverPath = fileURLToPath(new URL("../../../services/mcp-server/dist/main.js", import.meta.url));
const baselinePath = fileURLToPath(new URL("./baseline-server.mjs", import.meta.url));
if (!existsSync(serverPath)) {
  process.stderr.write(`No built server at ${serverPath}: run \`pnpm bench\` from the repository root (it builds first), or \`pnpm --filter @deliberate/mcp-server build\`.\n`);
  process.exit(1);
}

const directory = mkdtempSync(join(tmpdir(), "deliberate-bench-"));
const baseEnvironment = { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "warn" };

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

/** Milliseconds from spawn to the initialize response on stdout. */
async function coldStart(script: string, env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [script], { env, stdio: ["pipe", "pipe", "ignore"] });
  child.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } } })}\n`,
  );
  const elapsed = await new Promise<number>((resolve, reject) => {
    let buffered = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      buffered += chunk;
      if (buffered.includes("\n")) resolve(performance.now() - started);
    });
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}) before answering initialize`)));
  });
  child.stdin.end();
  if (child.exitCode === null) await once(child, "exit");
  return elapsed;
}

async function latency(): Promise<string> {
  // A session with one checkpoint, made through the server itself with a scripted model.
  const fake = await createFakeModelServer({
    respond: { object: { content: "The next step.", confidence: 0.8, next_step: "Check it." } },
  });
  const env = { ...baseEnvironment, DATABASE_PATH: join(directory, "bench.db"), OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "bench" };
  const ours = await connect(serverPath, env);
  const baseline = await connect(baselinePath, baseEnvironment);
  try {
    const seeded = await ours.callTool({ name: "reasoning_linear", arguments: { content: "Seed the session." } });
    assertOk(seeded, "seeding");
    const sessionId = (seeded.structuredContent as { session_id: string }).session_id;
    assertOk(await ours.callTool({ name: "reasoning_checkpoint", arguments: { operation: "create", session_id: sessionId, name: "bench" } }), "checkpoint create");

    const callOurs = async () => {
      const result = await ours.callTool({ name: "reasoning_checkpoint", arguments: { operation: "list", session_id: sessionId } });
      assertOk(result, "checkpoint list");
    };
    const callBaseline = async () => assertOk(await baseline.callTool({ name: "echo", arguments: { text: "hello" } }), "echo");

    for (let index = 0; index < warmup; index += 1) {
      await callOurs();
      await callBaseline();
    }
    const oursTimes: number[] = [];
    const baselineTimes: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      for (let index = 0; index < calls / rounds; index += 1) oursTimes.push(await timed(callOurs));
      for (let index = 0; index < calls / rounds; index += 1) baselineTimes.push(await timed(callBaseline));
    }
    return formatComparison("(a) per-call latency over stdio: reasoning_checkpoint list vs trivial echo", summarize(oursTimes), summarize(baselineTimes));
  } finally {
    await ours.close();
    await baseline.close();
    await fake.close();
  }
}

async function startup(): Promise<string> {
  const env = { ...baseEnvironment, DATABASE_PATH: join(directory, "cold.db") };
  await coldStart(serverPath, env); // creates and migrates the database once, outside the figures
  const oursTimes: number[] = [];
  const baselineTimes: number[] = [];
  for (let index = 0; index < coldStarts; index += 1) {
    oursTimes.push(await coldStart(serverPath, env));
    baselineTimes.push(await coldStart(baselinePath, baseEnvironment));
  }
  return formatComparison("(b) cold start: spawn to initialize response", summarize(oursTimes), summarize(baselineTimes));
}

try {
  const started = performance.now();
  process.stdout.write(`Node ${process.version}, ${calls} calls after ${warmup} warm-up, ${coldStarts} cold starts each\n\n`);
  process.stdout.write(`${await latency()}\n\n`);
  process.stdout.write(`${await startup()}\n\n`);
  process.stdout.write(`${await runIssue3Bench()}\n\n`);
  process.stdout.write(`${await runDialogBench()}\n\n`);
  process.stdout.write(`${formatHttpBench(await runHttpBench())}\n\n`);
  process.stdout.write(`${await runKnowledgeGraphBench()}\n\n`);
  process.stdout.write(`${formatReplicaBench(await runReplicaBench())}\n\n`);
  process.stdout.write(`total ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}

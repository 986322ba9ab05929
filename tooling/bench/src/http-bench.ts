import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { quantile } from "./statistics.ts";

// HTTP API throughput: the built deliberate-api against a bare node:http JSON
// server in the same run, at a fixed number of concurrent keep-alive
// connections, for GET /healthz and a heuristic POST /agent_intent (no model
// configured, so the decision is the service's own work: validation, tool
// compilation, the heuristic, telemetry row, JSON). Both servers run as child
// processes; the load generator runs here and alternates between them in
// rounds so drift hits both alike.
//
// Wire into tooling/bench/src/main.ts with:
//   import { formatHttpBench, runHttpBench } from "./http-bench.ts";
//   process.stdout.write(`${formatHttpBench(await runHttpBench())}\n`);
// and build the service first (root package.json "bench":
//   turbo run build --filter=@deliberate/mcp-server... --filter=@deliberate/http-api... && ...).
// Run alone: pnpm --filter @deliberate/http-api build && pnpm --filter @deliberate/bench exec tsx src/http-bench.ts

export interface HttpBenchOptions {
  /** Path of the built service; default services/http-api/dist/main.js. */
  serverPath?: string;
  /** Concurrent keep-alive connections (default 50). */
  connections?: number;
  /** Measured time per series per round (default 3,000 ms). */
  durationMs?: number;
  /** Unmeasured load before each series (default 500 ms). */
  warmupMs?: number;
  /** Rounds alternating the servers (default 2). */
  rounds?: number;
}

/** Throughput and latency of one series. */
export interface LoadResult {
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
}

export interface HttpBenchReport {
  connections: number;
  healthz: { deliberate: LoadResult; baseline: LoadResult };
  agentIntent: { deliberate: LoadResult; baseline: LoadResult };
}

const intentBody = JSON.stringify({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" });

// The baseline: what a minimal JSON service on node:http costs (parse the body, answer a fixed intent).
const baselineSource = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/healthz") {
    const body = JSON.stringify({ status: "ok" });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    return res.end(body);
  }
  let text = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (text += chunk));
  req.on("end", () => {
    const input = JSON.parse(text);
    const body = JSON.stringify({ status: "ok", duration_ms: 0, intent_id: "intent-1", tool_name: "context.fts_search", tool_args: { query: input.goal_text }, reasoning: "baseline", finish: false, final_text: null, trace: [] });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(JSON.stringify({ url: "http://127.0.0.1:" + server.address().port }) + "\\n"));
`;

/** A port free right now on 127.0.0.1. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Starts the service on a chosen port and waits until /healthz answers. */
async function startService(serverPath: string, env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [serverPath], { env: { ...env, PORT: String(port) }, stdio: ["ignore", "ignore", "inherit"] });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${serverPath} exited with ${child.exitCode} before listening`);
    const status = await new Promise<number>((resolve) => {
      request(`${url}/healthz`, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      })
        .on("error", () => resolve(0))
        .end();
    });
    if (status === 200) return { child, url };
    if (Date.now() > deadline) throw new Error(`${serverPath} did not answer /healthz within 15 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts a child process and resolves with the URL it reports (a JSON line with `url` on stdout or stderr). */
async function startServer(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL reported by ${args.join(" ")} within 15 s`)), 15_000);
    let buffered = "";
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (const line of buffered.split("\n")) {
        try {
          const parsed = JSON.parse(line) as { url?: unknown };
          if (typeof parsed.url === "string") {
            clearTimeout(timer);
            resolve(parsed.url);
            return;
          }
        } catch {
          // not a complete JSON line yet
        }
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code} before listening`)));
  });
  return { child, url };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/** What failed requests answered, by status code or error code (printed when a run has errors). */
const failureKinds = new Map<string, number>();
function countFailure(kind: string): void {
  failureKinds.set(kind, (failureKinds.get(kind) ?? 0) + 1);
}

/** One request on the keep-alive agent; resolves with its latency in ms, or -1 on error / non-2xx. */
function send(agent: Agent, url: URL, method: "GET" | "POST", body: string | undefined): Promise<number> {
  return new Promise((resolve) => {
    const started = performance.now();
    const outgoing = request(
      url,
      { method, agent, headers: body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on("end", () => {
          const ok = response.statusCode !== undefined && response.statusCode < 300;
          if (!ok) countFailure(`${url.host} HTTP ${response.statusCode}`);
          resolve(ok ? performance.now() - started : -1);
        });
        response.on("error", () => resolve(-1));
      },
    );
    outgoing.on("error", (error: NodeJS.ErrnoException) => {
      countFailure(`${url.host} ${error.code ?? error.message}`);
      resolve(-1);
    });
    outgoing.end(body);
  });
}

/** `connections` loops issuing requests back to back for `durationMs`. */
async function load(target: string, method: "GET" | "POST", body: string | undefined, connections: number, durationMs: number): Promise<{ latencies: number[]; errors: number; elapsedMs: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(target);
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const latency = await send(agent, url, method, body);
        if (latency < 0) errors += 1;
        else latencies.push(latency);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return { latencies, errors, elapsedMs };
}

function combine(runs: ReadonlyArray<{ latencies: number[]; errors: number; elapsedMs: number }>): LoadResult {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const elapsedMs = runs.reduce((total, run) => total + run.elapsedMs, 0);
  return {
    requests: latencies.length,
    errors: runs.reduce((total, run) => total + run.errors, 0),
    requestsPerSecond: latencies.length / (elapsedMs / 1000),
    p50: latencies.length > 0 ? quantile(latencies, 0.5) : Number.NaN,
    p99: latencies.length > 0 ? quantile(latencies, 0.99) : Number.NaN,
  };
}

/** Runs the comparison; throws if the service is not built. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchReport> {
  const serverPath = options.serverPath ?? fileURLToPath(new URL("../../../services/http-api/dist/main.js", import.meta.url));
  if (!existsSync(serverPath)) {
    throw new Error(`No built HTTP API at ${serverPath}: run \`pnpm --filter @deliberate/http-api build\` first.`);
  }
  const connections = options.connections ?? 50;
  const durationMs = options.durationMs ?? 3000;
  const warmupMs = options.warmupMs ?? 500;
  const rounds = options.rounds ?? 2;
  const directory = mkdtempSync(join(tmpdir(), "deliberate-http-bench-"));
  const environment = {
    PATH: process.env["PATH"] ?? "",
    DATABASE_PATH: join(directory, "bench.db"),
    LOG_LEVEL: "warn",
    // The rate limiter would turn most of the load into 429s.
    REASONING_API_RATE_LIMIT: "0",
  };
  const deliberate = await startService(serverPath, environment);
  const baseline = await startServer(["-e", baselineSource], { PATH: environment.PATH });
  try {
    const series = {
      healthz: { deliberate: [] as Array<Awaited<ReturnType<typeof load>>>, baseline: [] as Array<Awaited<ReturnType<typeof load>>> },
      agentIntent: { deliberate: [] as Array<Awaited<ReturnType<typeof load>>>, baseline: [] as Array<Awaited<ReturnType<typeof load>>> },
    };
    for (let round = 0; round < rounds; round += 1) {
      for (const [key, server] of [["deliberate", deliberate], ["baseline", baseline]] as const) {
        await load(`${server.url}/healthz`, "GET", undefined, connections, warmupMs);
        series.healthz[key].push(await load(`${server.url}/healthz`, "GET", undefined, connections, durationMs));
        await load(`${server.url}/agent_intent`, "POST", intentBody, connections, warmupMs);
        series.agentIntent[key].push(await load(`${server.url}/agent_intent`, "POST", intentBody, connections, durationMs));
      }
    }
    return {
      connections,
      healthz: { deliberate: combine(series.healthz.deliberate), baseline: combine(series.healthz.baseline) },
      agentIntent: { deliberate: combine(series.agentIntent.deliberate), baseline: combine(series.agentIntent.baseline) },
    };
  } finally {
    await Promise.all([stopServer(deliberate.child), stopServer(baseline.child)]);
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The report as text: requests/s and p99 per series with deliberate/baseline ratios. */
export function formatHttpBench(report: HttpBenchReport): string {
  const number = (value: number, digits = 0) => value.toFixed(digits).padStart(10);
  const rows = (title: string, pair: { deliberate: LoadResult; baseline: LoadResult }) => [
    `${title}`,
    `               ${"req/s".padStart(10)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"errors".padStart(10)}`,
    `  deliberate   ${number(pair.deliberate.requestsPerSecond)}${number(pair.deliberate.p50, 2)}${number(pair.deliberate.p99, 2)}${number(pair.deliberate.errors)}`,
    `  baseline     ${number(pair.baseline.requestsPerSecond)}${number(pair.baseline.p50, 2)}${number(pair.baseline.p99, 2)}${number(pair.baseline.errors)}`,
    `  ratio        ${`${(pair.deliberate.requestsPerSecond / pair.baseline.requestsPerSecond).toFixed(2)}x`.padStart(10)}${`${(pair.deliberate.p50 / pair.baseline.p50).toFixed(2)}x`.padStart(10)}${`${(pair.deliberate.p99 / pair.baseline.p99).toFixed(2)}x`.padStart(10)}`,
  ];
  return [
    `HTTP API vs bare node:http JSON server, ${report.connections} concurrent keep-alive connections (ratio = deliberate / baseline)`,
    ...rows("(h1) GET /healthz", report.healthz),
    ...rows("(h2) POST /agent_intent, heuristic (no model)", report.agentIntent),
    ...(failureKinds.size > 0 ? [`  failed requests: ${[...failureKinds].map(([kind, count]) => `${kind} x${count}`).join(", ")}`] : []),
  ].join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runHttpBench().then(
    (report) => process.stdout.write(`${formatHttpBench(report)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}

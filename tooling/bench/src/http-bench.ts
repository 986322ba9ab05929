import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import autocannon from "autocannon";
import { quantile } from "./statistics.ts";
import { benchDecisionInput } from "./decision-input.ts";
import { type CpuReading, cpuBetween, readCpu } from "./process-cpu.ts";

// Issue 17 (h): HTTP API throughput against a bare node:http JSON server in the
// same run, with autocannon at 50 keep-alive connections, rounds alternating
// the two servers so drift hits both alike. Series:
//   GET /healthz;
//   POST /agent_intent, heuristic (no model configured: validation, the
//     decision tool run and recorded by the engine, telemetry, JSON);
//   POST /v1/tools/reasoning_decision with given weights and scores (no model:
//     TOPSIS/weighted in code, a new session and its thought committed before
//     the response, the invocation row batched);
//   POST /v1/tools/reasoning_checkpoint, operation list, on a session persisted
//     before the load (a model-free read: the session and its checkpoints).
// The bare server answers each path with a fixed JSON body after parsing the request.
// Run alone: pnpm --filter @deliberate/http-api build && pnpm --filter @deliberate/bench exec tsx src/http-bench.ts

export interface HttpBenchOptions {
  /** Path of the built service; default BENCH_HTTP_SERVER, else services/http-api/dist/main.js. */
  serverPath?: string;
  /** Concurrent keep-alive connections (default 50). */
  connections?: number;
  /** Measured seconds per series per round (default 4). */
  seconds?: number;
  /** Unmeasured load before each series, seconds (default 1). */
  warmupSeconds?: number;
  /** Rounds alternating the servers (default 2). */
  rounds?: number;
  /**
   * Also load a second instance with the fast path off (`REASONING_API_FAST_PATH=0`,
   * every request through Hono): the before of the fast path, in the same run.
   * Default: the BENCH_HTTP_HONO environment variable is 1.
   */
  viaHono?: boolean;
}

/** Throughput and latency of one series. */
export interface LoadResult {
  requests: number;
  errors: number;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** The server process's CPU (all threads) per answered request, µs; absent where /proc cannot be read. */
  cpuMicrosPerRequest?: number;
  /** The share of the run its main thread was runnable but waiting for a CPU (0–1); absent without /proc. */
  mainWaitShare?: number;
}

export interface HttpSeries {
  title: string;
  deliberate: LoadResult;
  bare: LoadResult;
  /** The same service with every request through Hono (when asked for). */
  viaHono?: LoadResult;
}

export interface HttpBenchReport {
  connections: number;
  series: HttpSeries[];
}

interface Target {
  title: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** The goal as a fraction of bare req/s, when there is one. */
  goal?: number;
}

const targets: Target[] = [
  { title: "(h1) GET /healthz", method: "GET", path: "/healthz" },
  {
    title: "(h2) POST /agent_intent, heuristic (no model)",
    method: "POST",
    path: "/agent_intent",
    body: JSON.stringify({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" }),
    // Issue 30: reads and intents at Fastify's bare level.
    goal: 0.5,
  },
  {
    title:
      "(h3) POST /v1/tools/reasoning_decision, given weights and scores (no model; writes a session and a thought)",
    method: "POST",
    path: "/v1/tools/reasoning_decision",
    body: JSON.stringify(benchDecisionInput),
    // Issue 30: a model-free call that writes, at least a quarter of bare node:http.
    goal: 0.25,
  },
  {
    title: "(h4) POST /v1/tools/reasoning_checkpoint, list on a persisted session (no model; a read)",
    method: "POST",
    path: "/v1/tools/reasoning_checkpoint",
    // The session is made before the load (see seedReadTarget).
    body: JSON.stringify({ operation: "list", session_id: "(seeded)" }),
    // Issue 30: reads and intents at Fastify's bare level.
    goal: 0.5,
  },
];

/** Posts JSON to the running service and returns the parsed answer (throws on a non-2xx). */
async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${url} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** (h4)'s session: made by a model-free decision, with one checkpoint, through the service itself. */
async function seedReadTarget(url: string): Promise<string> {
  const decision = await postJson(`${url}/v1/tools/reasoning_decision`, JSON.parse(targets[2]?.body ?? "{}"));
  const sessionId = decision["session_id"] as string;
  await postJson(`${url}/v1/tools/reasoning_checkpoint`, { operation: "create", session_id: sessionId, name: "bench" });
  return JSON.stringify({ operation: "list", session_id: sessionId });
}

// The bare server: what a minimal JSON service on node:http costs (parse the body, answer fixed JSON).
const bareSource = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    const body = JSON.stringify({ status: "ok" });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    return res.end(body);
  }
  let text = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (text += chunk));
  req.on("end", () => {
    const input = JSON.parse(text);
    const body = JSON.stringify({ status: "ok", duration_ms: 0, intent_id: "intent-1", tool_name: "context.fts_search", tool_args: { query: input.goal_text ?? input.question }, reasoning: "baseline", finish: false, final_text: null, trace: [] });
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
async function startService(
  serverPath: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [serverPath], {
    env: { ...env, PORT: String(port) },
    stdio: ["ignore", "ignore", "inherit"],
  });
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

/** Starts the bare server and resolves with the URL it prints. */
async function startBare(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["-e", bareSource], { env, stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  return { child, url: (JSON.parse(chunk.toString("utf8")) as { url: string }).url };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await once(child, "exit");
}

/** What failed requests answered (printed when a run has errors). */
const failureKinds = new Map<string, number>();

/** One autocannon run; every response's latency is kept (autocannon's own histogram has no p95). */
async function load(url: string, target: Target, connections: number, seconds: number, pid?: number): Promise<LoadRun> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  let finish: (result: autocannon.Result) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const cpuBefore = readCpu(pid);
  // With a callback autocannon returns its instance, whose events carry each response's time.
  const instance = autocannon(
    {
      url: `${url}${target.path}`,
      method: target.method,
      connections,
      duration: seconds,
      ...(target.body !== undefined ? { body: target.body, headers: { "content-type": "application/json" } } : {}),
    },
    (error, result) => (error ? fail(error) : finish(result)),
  );
  instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    else {
      errors += 1;
      const kind = `${target.path} HTTP ${statusCode}`;
      failureKinds.set(kind, (failureKinds.get(kind) ?? 0) + 1);
    }
  });
  const result = await done;
  const cpu = cpuBetween(cpuBefore, readCpu(pid));
  errors += result.errors + result.timeouts;
  return { latencies, errors, seconds: (performance.now() - started) / 1000, cpu };
}

/** One measured run: each answer's latency, the failures, its length and what the server spent. */
interface LoadRun {
  latencies: number[];
  errors: number;
  seconds: number;
  cpu: CpuReading | undefined;
}

function combine(runs: readonly LoadRun[]): LoadResult {
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((total, run) => total + run.seconds, 0);
  const errors = runs.reduce((total, run) => total + run.errors, 0);
  const at = (q: number) => (latencies.length > 0 ? quantile(latencies, q) : Number.NaN);
  const cpus = runs.map((run) => run.cpu);
  const spent = cpus.every((cpu) => cpu !== undefined)
    ? cpus.reduce(
        (total, cpu) => ({
          processMs: total.processMs + cpu.processMs,
          mainRunMs: total.mainRunMs + cpu.mainRunMs,
          mainWaitMs: total.mainWaitMs + cpu.mainWaitMs,
        }),
        { processMs: 0, mainRunMs: 0, mainWaitMs: 0 },
      )
    : undefined;
  const answered = latencies.length + errors;
  return {
    requests: latencies.length,
    errors,
    requestsPerSecond: latencies.length / seconds,
    p50: at(0.5),
    p95: at(0.95),
    p99: at(0.99),
    ...(spent !== undefined && answered > 0 ? { cpuMicrosPerRequest: (spent.processMs * 1000) / answered } : {}),
    ...(spent !== undefined && spent.mainRunMs + spent.mainWaitMs > 0
      ? { mainWaitShare: spent.mainWaitMs / (spent.mainRunMs + spent.mainWaitMs) }
      : {}),
  };
}

/** Runs the comparison; throws if the service is not built. */
export async function runHttpBench(options: HttpBenchOptions = {}): Promise<HttpBenchReport> {
  // BENCH_HTTP_SERVER: another build of the service (e.g. the previous one, to compare builds run by run).
  const serverPath =
    options.serverPath ??
    process.env["BENCH_HTTP_SERVER"] ??
    fileURLToPath(new URL("../../../services/http-api/dist/main.js", import.meta.url));
  if (!existsSync(serverPath))
    throw new Error(`No built HTTP API at ${serverPath}: run \`pnpm --filter @deliberate/http-api build\` first.`);
  const connections = options.connections ?? 50;
  const seconds = options.seconds ?? 4;
  const warmupSeconds = options.warmupSeconds ?? 1;
  const rounds = options.rounds ?? 2;
  const directory = mkdtempSync(join(tmpdir(), "deliberate-http-bench-"));
  const path = { PATH: process.env["PATH"] ?? "" };
  // The rate limiter would turn most of the load into 429s.
  const viaHono = options.viaHono ?? process.env["BENCH_HTTP_HONO"] === "1";
  const deliberate = await startService(serverPath, {
    ...path,
    DATABASE_PATH: join(directory, "bench.db"),
    LOG_LEVEL: "warn",
    REASONING_API_RATE_LIMIT: "0",
  });
  const hono = viaHono
    ? await startService(serverPath, {
        ...path,
        DATABASE_PATH: join(directory, "hono.db"),
        LOG_LEVEL: "warn",
        REASONING_API_RATE_LIMIT: "0",
        REASONING_API_FAST_PATH: "0",
      })
    : undefined;
  const bare = await startBare(path);
  try {
    const readBody = await seedReadTarget(deliberate.url);
    const honoReadBody = hono ? await seedReadTarget(hono.url) : readBody;
    const bodyFor = (target: Target, server: "deliberate" | "viaHono" | "bare") =>
      target.path === "/v1/tools/reasoning_checkpoint"
        ? { ...target, body: server === "viaHono" ? honoReadBody : readBody }
        : target;
    type Runs = LoadRun[];
    const runs = targets.map(() => ({ deliberate: [] as Runs, bare: [] as Runs, viaHono: [] as Runs }));
    const servers = [
      ["deliberate", deliberate],
      ...(hono ? [["viaHono", hono] as const] : []),
      ["bare", bare],
    ] as const;
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, target] of targets.entries()) {
        for (const [key, server] of servers) {
          await load(server.url, bodyFor(target, key), connections, warmupSeconds);
          runs[index]?.[key].push(await load(server.url, bodyFor(target, key), connections, seconds, server.child.pid));
        }
      }
    }
    return {
      connections,
      series: targets.map((target, index) => ({
        title: target.title,
        deliberate: combine(runs[index]?.deliberate ?? []),
        bare: combine(runs[index]?.bare ?? []),
        ...(hono ? { viaHono: combine(runs[index]?.viaHono ?? []) } : {}),
      })),
    };
  } finally {
    await Promise.all([
      stopServer(deliberate.child),
      stopServer(bare.child),
      ...(hono ? [stopServer(hono.child)] : []),
    ]);
    rmSync(directory, { recursive: true, force: true });
  }
}

/**
 * CPU per request of each server and the deliberate / bare ratio of it, with how long each main thread waited
 * for a CPU: on a shared machine req/s moves with everyone else's load, CPU per request much less.
 */
function cpuLine(series: HttpSeries): string[] {
  const { deliberate, bare } = series;
  if (deliberate.cpuMicrosPerRequest === undefined || bare.cpuMicrosPerRequest === undefined) return [];
  const waited = (result: LoadResult) =>
    result.mainWaitShare === undefined ? "n/a" : `${(100 * result.mainWaitShare).toFixed(0)}%`;
  return [
    `  CPU/request  deliberate ${deliberate.cpuMicrosPerRequest.toFixed(1)} µs, bare ${bare.cpuMicrosPerRequest.toFixed(1)} µs (${(deliberate.cpuMicrosPerRequest / bare.cpuMicrosPerRequest).toFixed(2)}x); main thread waiting for a CPU: deliberate ${waited(deliberate)}, bare ${waited(bare)}`,
  ];
}

/** Issue 30: p99 under load at most this many times p50. */
const tailGoal = 3;

/** The report as text: requests/s and latency percentiles per series, deliberate / bare ratios, goals (throughput and tail). */
export function formatHttpBench(report: HttpBenchReport): string {
  const number = (value: number, digits = 0) => value.toFixed(digits).padStart(10);
  const lines = [
    `(h) HTTP API vs a bare node:http JSON server, autocannon, ${report.connections} keep-alive connections (ratio = deliberate / bare)`,
  ];
  for (const [index, series] of report.series.entries()) {
    const goal = targets[index]?.goal;
    const ratio = series.deliberate.requestsPerSecond / series.bare.requestsPerSecond;
    lines.push(
      series.title,
      `               ${"req/s".padStart(10)}${"p50 ms".padStart(10)}${"p95 ms".padStart(10)}${"p99 ms".padStart(10)}${"p99/p50".padStart(10)}${"errors".padStart(10)}`,
      ...(["deliberate", "viaHono", "bare"] as const).flatMap((key) => {
        const result = series[key];
        return result === undefined
          ? []
          : [
              `  ${(key === "viaHono" ? "via Hono" : key).padEnd(13)}${number(result.requestsPerSecond)}${number(result.p50, 2)}${number(result.p95, 2)}${number(result.p99, 2)}${`${(result.p99 / result.p50).toFixed(2)}x`.padStart(10)}${number(result.errors)}`,
            ];
      }),
      `  ratio        ${`${ratio.toFixed(2)}x`.padStart(10)}${[series.deliberate.p50 / series.bare.p50, series.deliberate.p95 / series.bare.p95, series.deliberate.p99 / series.bare.p99].map((value) => `${value.toFixed(2)}x`.padStart(10)).join("")}`,
      ...cpuLine(series),
      ...(series.viaHono
        ? [
            `  via Hono / bare: ${(series.viaHono.requestsPerSecond / series.bare.requestsPerSecond).toFixed(2)}x req/s (every request through Hono: the fast path's before)`,
          ]
        : []),
      ...(goal !== undefined
        ? [`  goal req/s >= ${goal.toFixed(2)}x bare: ${ratio >= goal ? "met" : "MISSED"} (${ratio.toFixed(2)}x)`]
        : []),
      // Issue 30's tail-latency goal: p99 under load at most 3x p50, for every figure.
      `  tail p99 <= ${tailGoal}x p50: ${series.deliberate.p99 <= tailGoal * series.deliberate.p50 ? "met" : "MISSED"} (${(series.deliberate.p99 / series.deliberate.p50).toFixed(2)}x; bare ${(series.bare.p99 / series.bare.p50).toFixed(2)}x)`,
    );
  }
  if (failureKinds.size > 0)
    lines.push(`  failed requests: ${[...failureKinds].map(([kind, count]) => `${kind} x${count}`).join(", ")}`);
  return lines.join("\n");
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

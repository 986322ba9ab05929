import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@deliberate/replicas";

// Memory of the built services under a steady load: RSS and V8 heap (after a full GC) of each service
// process at 5k, 20k and 100k calls (MEMORY_CALLS=5000,20000,100000). Not part of the test suite.
//
//   node --import tsx tooling/bench/src/memory-bench.ts            (both services)
//   MEMORY_SERVICES=api MEMORY_CALLS=1000,5000 node --import tsx tooling/bench/src/memory-bench.ts
//   MEMORY_DIST=dist-base ...                                      (another build of both services)
//
// The load: the HTTP API gets sync heuristic intents (half), checkpoint creates and checkpoint lists
// (a quarter each) over 20 sessions; MCP over Streamable HTTP gets checkpoint creates and lists (half
// each). 16 requests in flight on keep-alive connections. Each service runs on a fresh SQLite file with a
// probe preloaded (`--expose-gc`): on SIGUSR2 it collects garbage and prints process.memoryUsage().

const root = fileURLToPath(new URL("../../../", import.meta.url));
// MEMORY_DIST names another build folder of each service (e.g. an older build copied to dist-base) to compare.
const dist = process.env["MEMORY_DIST"] ?? "dist";
const entries = {
  api: join(root, `services/http-api/${dist}/main.js`),
  mcp: join(root, `services/mcp-server/${dist}/main.js`),
} as const;
type Service = keyof typeof entries;

const probe = `
process.on("SIGUSR2", () => {
  if (typeof globalThis.gc === "function") { globalThis.gc(); globalThis.gc(); }
  const usage = process.memoryUsage();
  // Linux: how much of the resident set is anonymous memory (heaps: V8, malloc, SQLite's page cache) rather than mapped files.
  try {
    const rollup = require("node:fs").readFileSync("/proc/self/smaps_rollup", "utf8");
    const kilobytes = (name) => Number((rollup.split("\\n").find((line) => line.startsWith(name + ":")) || "0").replace(/[^0-9]/g, "")) * 1024;
    usage.anonymous = kilobytes("Anonymous");
  } catch {}
  process.stderr.write("MEMORY_PROBE " + JSON.stringify(usage) + "\\n");
});
`;

interface Sample {
  calls: number;
  rssMb: number;
  /** Anonymous memory in the resident set (Linux), the rest being mapped files (code, libraries). */
  anonymousMb: number | undefined;
  heapTotalMb: number;
  heapUsedMb: number;
  externalMb: number;
  arrayBuffersMb: number;
}

const megabytes = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function waitForLine(child: ChildProcess, lines: string[], pattern: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = lines.find((line) => pattern.test(line));
    if (found !== undefined) {
      lines.splice(lines.indexOf(found), 1);
      return found;
    }
    if (child.exitCode !== null)
      throw new Error(`the service exited (${child.exitCode}):\n${lines.slice(-10).join("\n")}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${lines.slice(-10).join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function start(
  service: Service,
  directory: string,
): Promise<{ child: ChildProcess; url: string; lines: string[] }> {
  const probePath = join(directory, "probe.cjs");
  writeFileSync(probePath, probe);
  const port = await freePort();
  const env = {
    PATH: process.env["PATH"] ?? "",
    // glibc's malloc arenas (one per thread that allocates, up to 8 per core) hold freed memory: pass a cap through to compare.
    ...(process.env["MALLOC_ARENA_MAX"] !== undefined ? { MALLOC_ARENA_MAX: process.env["MALLOC_ARENA_MAX"] } : {}),
    DATABASE_PATH: join(directory, `${service}.db`),
    LOG_LEVEL: "warn",
    REASONING_API_RATE_LIMIT: "100000000",
    ...(service === "api" ? { PORT: String(port) } : {}),
  };
  const args = [
    "--expose-gc",
    "--require",
    probePath,
    entries[service],
    ...(service === "mcp" ? ["--http", "--port", String(port)] : []),
  ];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const lines: string[] = [];
  let pending = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const healthy = await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline || child.exitCode !== null)
      throw new Error(`${service} did not start:\n${lines.join("\n")}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, url: service === "mcp" ? `${base}/mcp` : base, lines };
}

function createPoster() {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const outgoing = request(
        url,
        {
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload), ...headers },
        },
        (incoming) => {
          let text = "";
          incoming.setEncoding("utf8");
          incoming.on("data", (chunk: string) => (text += chunk));
          incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, text }));
          incoming.on("error", reject);
        },
      );
      outgoing.on("error", reject);
      outgoing.end(payload);
    });
  return { post, close: () => agent.destroy() };
}

const mcpHeaders = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

/** One call of the load: `index` picks the kind. Resolves with the HTTP status (200/202 expected). */
function loadFor(service: Service, url: string, post: ReturnType<typeof createPoster>["post"], sessions: string[]) {
  const mcpCall = (id: number, name: string, args: Record<string, unknown>) =>
    post(url, { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } }, mcpHeaders);
  return async (index: number): Promise<number> => {
    const session = sessions[index % sessions.length] as string;
    if (service === "api") {
      const kind = index % 4;
      if (kind < 2)
        return (
          await post(`${url}/agent_intent`, { goal_text: `search project for TODOs ${index}`, session_id: session })
        ).status;
      if (kind === 2)
        return (
          await post(`${url}/v1/tools/reasoning_checkpoint`, {
            operation: "create",
            session_id: session,
            name: `cp ${index}`,
          })
        ).status;
      return (await post(`${url}/v1/tools/reasoning_checkpoint`, { operation: "list", session_id: session })).status;
    }
    if (index % 2 === 0)
      return (
        await mcpCall(index, "reasoning_checkpoint", { operation: "create", session_id: session, name: `cp ${index}` })
      ).status;
    return (await mcpCall(index, "reasoning_checkpoint", { operation: "list", session_id: session })).status;
  };
}

async function openSessions(
  service: Service,
  url: string,
  post: ReturnType<typeof createPoster>["post"],
): Promise<string[]> {
  const sessions: string[] = [];
  for (let index = 0; index < 20; index += 1) {
    const args = { operation: "create", content: `Session ${index} starts here.` };
    const answer =
      service === "api"
        ? await post(`${url}/v1/tools/reasoning_timeline`, args)
        : await post(
            url,
            {
              jsonrpc: "2.0",
              id: index,
              method: "tools/call",
              params: { name: "reasoning_timeline", arguments: args },
            },
            mcpHeaders,
          );
    const json = answer.text.startsWith("{")
      ? answer.text
      : (answer.text
          .split("\n")
          .find((line) => line.startsWith("data: "))
          ?.slice(6) ?? "{}");
    const parsed = JSON.parse(json) as {
      session_id?: string;
      result?: { structuredContent?: { session_id?: string } };
    };
    const id = parsed.session_id ?? parsed.result?.structuredContent?.session_id;
    if (id === undefined) throw new Error(`no session from ${service}: ${answer.status} ${answer.text.slice(0, 300)}`);
    sessions.push(id);
  }
  return sessions;
}

/** Runs `service` up to each of `marks` calls, sampling memory at each; returns the samples and calls per second. */
export async function runMemoryBench(
  service: Service,
  marks: readonly number[],
): Promise<{ samples: Sample[]; failures: number; seconds: number }> {
  const directory = mkdtempSync(join(tmpdir(), `deliberate-memory-${service}-`));
  const { child, url, lines } = await start(service, directory);
  const poster = createPoster();
  const samples: Sample[] = [];
  let failures = 0;
  const started = performance.now();
  try {
    const sessions = await openSessions(service, url, poster.post);
    const call = loadFor(service, url, poster.post, sessions);
    const sample = async (calls: number) => {
      child.kill("SIGUSR2");
      const line = await waitForLine(child, lines, /^MEMORY_PROBE /, 30_000);
      const usage = JSON.parse(line.slice("MEMORY_PROBE ".length)) as NodeJS.MemoryUsage & { anonymous?: number };
      samples.push({
        calls,
        rssMb: megabytes(usage.rss),
        anonymousMb: usage.anonymous === undefined ? undefined : megabytes(usage.anonymous),
        heapTotalMb: megabytes(usage.heapTotal),
        heapUsedMb: megabytes(usage.heapUsed),
        externalMb: megabytes(usage.external),
        arrayBuffersMb: megabytes(usage.arrayBuffers),
      });
    };
    await sample(0);
    let next = 0;
    for (const mark of marks) {
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < mark) {
            const index = next++;
            const status = await call(index).catch(() => 0);
            if (status !== 200 && status !== 202) failures += 1;
          }
        }),
      );
      await sample(mark);
    }
  } finally {
    poster.close();
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(directory, { recursive: true, force: true });
  }
  return { samples, failures, seconds: (performance.now() - started) / 1000 };
}

export function formatMemoryBench(service: Service, result: Awaited<ReturnType<typeof runMemoryBench>>): string {
  const rows = result.samples.map(
    (sample) =>
      `  ${String(sample.calls).padStart(7)} calls: RSS ${sample.rssMb} MB${sample.anonymousMb === undefined ? "" : ` (anonymous ${sample.anonymousMb} MB)`}, V8 heap used ${sample.heapUsedMb} MB of ${sample.heapTotalMb} MB, external ${sample.externalMb} MB (array buffers ${sample.arrayBuffersMb} MB)`,
  );
  return [`(m) ${service}: ${result.failures} failed calls, ${result.seconds.toFixed(0)} s`, ...rows].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const marks = (process.env["MEMORY_CALLS"] ?? "5000,20000,100000").split(",").map(Number);
  const services = (process.env["MEMORY_SERVICES"] ?? "api,mcp").split(",") as Service[];
  for (const service of services)
    process.stdout.write(`${formatMemoryBench(service, await runMemoryBench(service, marks))}\n`);
}

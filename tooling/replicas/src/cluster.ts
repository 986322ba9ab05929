import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { Agent, createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

/** The built entry points of the two services (`pnpm build` makes them). */
export const servicePaths = {
  api: fileURLToPath(new URL("../../../services/http-api/dist/main.js", import.meta.url)),
  mcp: fileURLToPath(new URL("../../../services/mcp-server/dist/main.js", import.meta.url)),
} as const;

/** Which service a replica runs: `deliberate-api` or `deliberate-mcp --http`. */
export type ReplicaKind = keyof typeof servicePaths;

/** One running service process. */
export interface Replica {
  readonly kind: ReplicaKind;
  readonly name: string;
  /** The API's base URL, or the MCP endpoint (`.../mcp`). */
  readonly url: string;
  readonly child: ChildProcess;
  /** Its log lines (stderr) so far. */
  readonly logs: string[];
  /** SIGTERM (graceful shutdown), then its exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies at once, holding whatever it held. */
  kill(): Promise<void>;
}

export interface StartReplicaOptions {
  kind: ReplicaKind;
  /** Environment of the process (PATH is added). */
  env: Record<string, string>;
  name?: string;
  /** Another build of the service (e.g. a `pnpm deploy` folder's dist/main.js). */
  entry?: string;
  /** How long to wait for it to listen; default 30 s. */
  timeoutMs?: number;
}

/** A port free right now on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function healthy(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * Starts a built service on a free loopback port and resolves once its
 * /healthz answers (any LOG_LEVEL works: nothing is read from its logs).
 */
export async function startReplica(options: StartReplicaOptions): Promise<Replica> {
  const entry = options.entry ?? servicePaths[options.kind];
  if (!existsSync(entry))
    throw new Error(
      `No built service at ${entry}: run \`pnpm build\` (or pnpm --filter @deliberate/${options.kind === "api" ? "http-api" : "mcp-server"} build) first.`,
    );
  const port = await freePort();
  const args = options.kind === "mcp" ? [entry, "--http", "--port", String(port)] : [entry];
  // The MCP replica serves every toolset (its default, core, leaves out tools the scenarios call).
  const env = {
    PATH: process.env["PATH"] ?? "",
    ...(options.kind === "api" ? { PORT: String(port) } : { DELIBERATE_TOOLSETS: "all" }),
    ...options.env,
  };
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const logs: string[] = [];
  const name = options.name ?? `${options.kind}-${child.pid}`;
  let pending = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    logs.push(...lines);
  });
  const base = `http://127.0.0.1:${port}`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  while (!(await healthy(`${base}/healthz`))) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `${name} exited (${child.exitCode ?? child.signalCode}) before listening:\n${logs.slice(-20).join("\n")}`,
      );
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`${name} did not answer ${base}/healthz within ${timeoutMs} ms:\n${logs.slice(-20).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const url = options.kind === "mcp" ? `${base}/mcp` : base;
  const exited = once(child, "exit").then(([code]) => code as number | null);
  return {
    kind: options.kind,
    name,
    url,
    child,
    logs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** One callback POST received. */
export interface Delivery {
  jobId: string;
  body: string;
  attempt: number;
  /** `Idempotency-Key`: the same for every delivery of one job's result. */
  deliveryId: string;
}

/** A loopback HTTP server that records every callback (and answers 200). */
export interface CallbackReceiver {
  readonly url: string;
  readonly deliveries: Delivery[];
  /** Deliveries per job id. */
  byJob(): Map<string, Delivery[]>;
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const jobId = String(request.headers["x-deliberate-job-id"] ?? "");
      deliveries.push({
        jobId,
        body,
        attempt: Number(request.headers["x-deliberate-delivery-attempt"] ?? 0),
        deliveryId: String(request.headers["idempotency-key"] ?? ""),
      });
      response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    deliveries,
    byJob() {
      const grouped = new Map<string, Delivery[]>();
      for (const delivery of deliveries)
        grouped.set(delivery.jobId, [...(grouped.get(delivery.jobId) ?? []), delivery]);
      return grouped;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A JSON answer: its status and parsed body. */
export interface JsonAnswer {
  status: number;
  body: unknown;
  /** The response headers (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
}

/**
 * POSTs JSON bodies over `node:http` on keep-alive connections (at most `maxSockets` per server):
 * a load of a thousand requests costs the test process a fifth of what `fetch` costs it. A request
 * whose connection fails (refused, reset: a killed replica) rejects with the socket error (its `code`).
 */
export interface JsonPoster {
  post(url: string, body: unknown): Promise<JsonAnswer>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createJsonPoster(options: { maxSockets?: number } = {}): JsonPoster {
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 32 });
  return {
    post(url, body) {
      const payload = JSON.stringify(body);
      return new Promise<JsonAnswer>((resolve, reject) => {
        const outgoing = request(
          url,
          {
            method: "POST",
            agent,
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
          },
          (response) => {
            let text = "";
            response.setEncoding("utf8");
            response.on("data", (chunk: string) => (text += chunk));
            response.on("error", reject);
            response.on("end", () => {
              try {
                resolve({
                  status: response.statusCode ?? 0,
                  body: text === "" ? undefined : JSON.parse(text),
                  headers: response.headers,
                });
              } catch (error) {
                reject(error);
              }
            });
          },
        );
        outgoing.on("error", reject);
        outgoing.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Runs `work` over `items` with at most `limit` at once; collects every outcome (never throws). */
export async function forEachLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<Array<PromiseSettledResult<R>>> {
  const results: Array<PromiseSettledResult<R>> = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        try {
          results[index] = { status: "fulfilled", value: await work(items[index] as T, index) };
        } catch (reason) {
          results[index] = { status: "rejected", reason };
        }
      }
    }),
  );
  return results;
}

/** Polls `check` until it returns true, or throws naming `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

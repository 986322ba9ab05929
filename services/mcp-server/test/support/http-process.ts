import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { request } from "node:http";
import { testServerEnvironment } from "@deliberate/engine/testing";
import { builtServer, collectLines } from "./server-process.ts";

export interface HttpServerProcess {
  child: ChildProcess;
  /** The MCP endpoint the server logged, e.g. http://127.0.0.1:43121/mcp. */
  url: URL;
  stderr: string[];
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Spawns the built server with `args` and waits for the log line announcing its URL (event-driven, no sleeps).
 * With `DELIBERATE_TEST_ENGINE_DIALECT=postgres` its `DATABASE_PATH` becomes a `DATABASE_URL` (`testServerEnvironment`).
 */
export async function startHttpServer(args: string[], env: Record<string, string>): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [builtServer, ...args], {
    env: await testServerEnvironment({
      PATH: process.env["PATH"] ?? "",
      LOG_LEVEL: "info",
      DELIBERATE_TOOLSETS: "all",
      ...env,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const stderr = collectLines(child.stderr);
  const url = await new Promise<URL>((resolve, reject) => {
    // The connection help is logged last: wait for it, then read the URL.
    const look = () => {
      if (!stderr.some((line) => line.includes("Connect Claude Code"))) return;
      for (const line of stderr) {
        const match = /MCP over Streamable HTTP at (\S+)/.exec(line);
        if (match?.[1]) {
          child.stderr?.off("data", onData);
          child.off("exit", onExit);
          resolve(new URL(match[1]));
          return;
        }
      }
    };
    const onData = () => setImmediate(look);
    const onExit = (code: number | null) =>
      reject(new Error(`server exited (${code}) before listening:\n${stderr.join("\n")}`));
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
  });
  return {
    child,
    url,
    stderr,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
  };
}

/** A raw HTTP request (node:http lets the test set any Host header, unlike fetch). */
export function rawRequest(options: {
  url: URL;
  method: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: options.url.hostname,
        port: options.url.port,
        path: options.url.pathname,
        method: options.method,
        headers: options.headers ?? {},
      },
      (incoming) => {
        let body = "";
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => (body += chunk));
        incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** A 2025-era initialize request body. */
export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

export const jsonHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

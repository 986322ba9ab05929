import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { workspacePackage } from "./global-setup.ts";

/** The built servers, as a host would run them. */
export const mcpServerMain = join(workspacePackage("@deliberate/mcp-server"), "dist", "main.js");
export const apiServerMain = join(workspacePackage("@deliberate/http-api"), "dist", "main.js");

/** A temporary folder; `remove()` deletes it. */
export function temporaryDirectory(prefix = "deliberate-client-test-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Collects a stream's lines as they arrive. */
export function collectLines(stream: Readable | null | undefined): string[] {
  const lines: string[] = [];
  let pending = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts.filter((line) => line !== ""));
  });
  return lines;
}

/**
 * The environment of a spawned server: no model keys (so model-backed tools
 * are host-executed, answered by the test's complete()), a fresh database:
 * SQLite at `databasePath`, or with `DELIBERATE_TEST_ENGINE_DIALECT=postgres`
 * a `DATABASE_URL` to the server's own place on the run's Postgres.
 */
export function serverEnvironment(
  databasePath: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  // DELIBERATE_TOOLSETS=all: the MCP server lists every tool (its default, core, leaves out ones the tests call).
  return testServerEnvironment({
    PATH: process.env["PATH"] ?? "",
    HOME: process.env["HOME"] ?? "",
    DATABASE_PATH: databasePath,
    LOG_LEVEL: "info",
    DELIBERATE_TOOLSETS: "all",
    ...extra,
  });
}

/**
 * `testServerEnvironment` of `@deliberate/engine/testing`, loaded only when the run is on Postgres: on SQLite
 * (no `DELIBERATE_TEST_ENGINE_DIALECT`, or `sqlite`) it leaves the environment as it is, and loading it (the
 * engine, the store, the providers) cost this suite's worker and vitest a second and a half of CPU.
 */
export async function testServerEnvironment(env: Record<string, string>): Promise<Record<string, string>> {
  const dialect = process.env["DELIBERATE_TEST_ENGINE_DIALECT"]?.trim().toLowerCase();
  if (dialect === undefined || dialect === "" || dialect === "sqlite") return env;
  const engineTesting = await import("@deliberate/engine/testing");
  return engineTesting.testServerEnvironment(env);
}

export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` (API) or the MCP endpoint `.../mcp`. */
  url: string;
  child: ChildProcess;
  /** stderr lines (JSON logs). */
  logs: string[];
  /** SIGSTOP: the process stops answering (its sockets stay open), for timeout tests. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  stop(): Promise<void>;
}

async function spawnService(
  main: string,
  args: string[],
  env: Record<string, string>,
  findUrl: (logs: string[]) => string | undefined,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [main, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const logs = collectLines(child.stderr);
  collectLines(child.stdout);
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const found = findUrl(logs);
      if (found === undefined) return;
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      resolve(found);
    };
    const onData = () => setImmediate(look);
    const onExit = (code: number | null) =>
      reject(new Error(`${main} exited (${code}) before listening:\n${logs.join("\n")}`));
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
  });
  return {
    url,
    child,
    logs,
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGCONT");
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Spawns `deliberate-api` on a free loopback port and waits for the line announcing its URL. */
export async function startApi(databasePath: string, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const env = await serverEnvironment(databasePath, {
    PORT: "0",
    HOST: "127.0.0.1",
    REASONING_QUEUE_POLL_MS: "20",
    REASONING_CALLBACK_ALLOWLIST: "127.0.0.1",
    REASONING_SHUTDOWN_GRACE_MS: "1000",
    ...extra,
  });
  return spawnService(apiServerMain, [], env, (logs) => {
    for (const line of logs) {
      if (!line.includes("deliberate-api listening")) continue;
      const url = (JSON.parse(line) as { url?: string }).url;
      if (url) return url;
    }
    return undefined;
  });
}

/** Spawns `deliberate-mcp --http` on a free loopback port and waits for its endpoint. */
export async function startMcpHttp(databasePath: string, extra: Record<string, string> = {}): Promise<ServiceProcess> {
  return spawnService(
    mcpServerMain,
    ["--http", "--port", "0"],
    await serverEnvironment(databasePath, extra),
    (logs) => {
      if (!logs.some((line) => line.includes("Connect Claude Code"))) return undefined;
      for (const line of logs) {
        const match = /MCP over Streamable HTTP at (\S+)/.exec(line);
        if (match?.[1]) return match[1];
      }
      return undefined;
    },
  );
}

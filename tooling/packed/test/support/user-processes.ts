import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { npmEnvironment } from "./npm.ts";

/** Lines written to a stream, as they arrive. */
export function collectLines(stream: Readable | null | undefined): string[] {
  const lines: string[] = [];
  let partial = "";
  stream?.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  });
  stream?.on("end", () => {
    if (partial !== "") lines.push(partial);
  });
  return lines;
}

/**
 * A user's environment for running the installed commands: a HOME of its own (so the default database
 * lands under it, in ~/.local/share/deliberate), no XDG_DATA_HOME, `node` = `nodeBinary` first on PATH,
 * and npm's download cache the real one (npx needs no download here: the folder has the package).
 */
export function userEnvironment(options: {
  home: string;
  nodeBinary?: string;
  extra?: NodeJS.ProcessEnv;
}): Record<string, string> {
  const path = [dirname(options.nodeBinary ?? process.execPath), process.env["PATH"] ?? ""].join(delimiter);
  const env = npmEnvironment({
    HOME: options.home,
    PATH: path,
    npm_config_cache: process.env["npm_config_cache"] ?? join(homedir(), ".npm"),
    ...options.extra,
  });
  delete env["XDG_DATA_HOME"];
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export function freshHome(): string {
  return mkdtempSync(join(tmpdir(), "deliberate-home-"));
}

/** An MCP client connected over stdio to `command args` (run in `cwd`), as Claude Code or Claude Desktop launches it. */
export async function connectStdio(options: {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}): Promise<{ client: Client; stderr: string[] }> {
  const transport = new StdioClientTransport({
    command: options.command,
    args: options.args,
    cwd: options.cwd,
    env: options.env,
    stderr: "pipe",
  });
  const stderr = collectLines(transport.stderr as Readable | null);
  const client = new Client({ name: "packed-test", version: "1.0.0" });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(
      `${options.command} ${options.args.join(" ")} did not start: ${String(error)}\n${stderr.join("\n")}`,
      { cause: error },
    );
  }
  return { client, stderr };
}

/**
 * Spawns a long-running command in a process group of its own and waits for a JSON log line on stderr that
 * `ready` accepts (its fields). A group, because `npx` runs the bin as a grandchild (through a shell) and
 * does not pass SIGTERM on: `stop` signals the whole group.
 */
export async function startLogged(options: {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  ready: (entry: Record<string, unknown>) => boolean;
}): Promise<{ child: ChildProcess; entry: Record<string, unknown>; stderr: string[] }> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const stderr = collectLines(child.stderr);
  collectLines(child.stdout);
  const entry = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const check = () => {
      for (const line of stderr) {
        try {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          if (options.ready(parsed)) return resolve(parsed);
        } catch {
          // not a log line
        }
      }
    };
    child.stderr?.on("data", () => setImmediate(check));
    child.once("exit", (code) =>
      reject(
        new Error(
          `${options.command} ${options.args.join(" ")} exited (${code}) before it was ready:\n${stderr.join("\n")}`,
        ),
      ),
    );
  });
  return { child, entry, stderr };
}

/** Whether any process of group `pid` is left. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a child started by `startLogged` and everything it started (SIGTERM to its process group), and waits
 * until none of them is left: SIGKILL after 15 s (a loaded machine), which the test then reports.
 */
export async function stop(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM");
  const deadline = Date.now() + 15_000;
  while (groupAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(-pid, "SIGKILL");
      throw new Error(`${child.spawnargs.join(" ")} (process group ${pid}) was still running 15 s after SIGTERM`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

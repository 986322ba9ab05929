import { spawn } from "node:child_process";
import { once } from "node:events";
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtServer } from "./support/global-setup.ts";
import { collectLines, temporaryDirectory } from "./support/server-process.ts";

const repositoryRoot = join(builtServer, "..", "..", "..", "..");
const directory = temporaryDirectory();
afterAll(() => directory.remove());

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "start-test", version: "1" } },
};
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
const listTools = { jsonrpc: "2.0", id: 2, method: "tools/list" };

/**
 * Runs `pnpm <args>` at the repository root as a user does (no `-s`, a fresh HOME, only PATH from this
 * environment: nothing of vitest's or of the pnpm that started it), writes `requests` to its stdin, closes
 * stdin (the server then stops) and collects what it wrote.
 */
async function pnpmAtRoot(
  args: string[],
  requests: object[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string[]; stderr: string[] }> {
  const child = spawn("pnpm", args, {
    cwd: repositoryRoot,
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: directory.path,
      DATABASE_PATH: join(directory.path, "start.db"),
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const stdout = collectLines(child.stdout);
  const stderr = collectLines(child.stderr);
  for (const request of requests) child.stdin.write(`${JSON.stringify(request)}\n`);
  child.stdin.end();
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr };
}

describe("pnpm start at the repository root (the README's command)", () => {
  it.each([[["start"]], [["run", "start"]]])(
    "pnpm %j writes nothing but JSON-RPC to stdout (no pnpm banner), and does not rebuild a current dist",
    { timeout: 120_000 },
    async (args) => {
      const before = statSync(builtServer).mtimeMs;
      const { code, stdout, stderr } = await pnpmAtRoot(args, [initialize, initialized, listTools]);
      expect(code, stderr.join("\n")).toBe(0);
      // Every line on stdout is a JSON-RPC message: the two answers and nothing else.
      expect(stdout.map((line) => (JSON.parse(line) as { jsonrpc?: string; id?: number }).id)).toEqual([1, 2]);
      for (const line of stdout) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe("2.0");
      // The default toolset (core) is listed.
      const listed = (JSON.parse(stdout[1] ?? "{}") as { result: { tools: Array<{ name: string }> } }).result.tools.map(
        (tool) => tool.name,
      );
      expect(listed).toEqual(expect.arrayContaining(["reasoning_linear", "reasoning_decision", "reasoning_preset"]));
      expect(statSync(builtServer).mtimeMs).toBe(before);
      // The connection help names the built script, not the start script.
      expect(stderr.join("\n")).toContain(`${builtServer} --print-config claude-code`);
    },
  );

  it("a configuration error: the server's one line on stderr, its exit code through pnpm, stdout empty", {
    timeout: 120_000,
  }, async () => {
    const { code, stdout, stderr } = await pnpmAtRoot(["start"], [initialize], { LOG_LEVEL: "loud" });
    expect(code).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([
      'deliberate-mcp: Invalid configuration: LOG_LEVEL must be one of debug, info, warn, error (got "loud").',
    ]);
  });

  it("other pnpm commands keep their output: `pnpm run` lists the scripts on stdout", {
    timeout: 120_000,
  }, async () => {
    const { code, stdout } = await pnpmAtRoot(["run"], []);
    expect(code).toBe(0);
    expect(stdout.join("\n")).toContain("start");
  });
});

import { spawn } from "node:child_process";
import { once } from "node:events";
import { statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtServer } from "./support/global-setup.ts";
import { collectLines, temporaryDirectory } from "./support/server-process.ts";

const repositoryRoot = join(builtServer, "..", "..", "..", "..");

describe("pnpm -s start at the repository root", () => {
  const directory = temporaryDirectory();
  afterAll(() => directory.remove());

  it("writes nothing but JSON-RPC to stdout, and does not rebuild a current dist", { timeout: 120_000 }, async () => {
    const before = statSync(builtServer).mtimeMs;
    const child = spawn("pnpm", ["-s", "start"], {
      cwd: repositoryRoot,
      env: { PATH: process.env["PATH"] ?? "", HOME: directory.path, DATABASE_PATH: join(directory.path, "start.db") },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = collectLines(child.stdout);
    const stderr = collectLines(child.stderr);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "start-test", version: "1" } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
    child.stdin.end();
    const [code] = (await once(child, "close")) as [number | null];
    expect(code, stderr.join("\n")).toBe(0);
    const lines = stdout.filter((line) => line !== "");
    expect(lines.length).toBe(2);
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe("2.0");
    // The default toolset (core) is listed.
    const listed = (JSON.parse(lines[1] ?? "{}") as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name);
    expect(listed).toEqual(expect.arrayContaining(["reasoning_linear", "reasoning_decision", "reasoning_preset"]));
    expect(statSync(builtServer).mtimeMs).toBe(before);
    // The connection help names the built script, not the start script.
    expect(stderr.join("\n")).toContain(`${builtServer} --print-config claude-code`);
  });
});

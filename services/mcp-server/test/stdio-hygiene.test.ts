import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { testServerEnvironment } from "@deliberate/engine/testing";
import { afterAll, describe, expect, it } from "vitest";
import { builtServer, collectLines, temporaryDirectory } from "./support/server-process.ts";

const directory = temporaryDirectory();
afterAll(() => directory.remove());

/** Resolves once `lines` holds a line satisfying `predicate` (checked on every chunk; no timers). */
function lineMatching(
  stream: NodeJS.ReadableStream,
  lines: string[],
  predicate: (line: string) => boolean,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = lines.find(predicate);
      if (found !== undefined) {
        stream.off("data", onData);
        stream.off("end", onEnd);
        resolve(found);
      }
    };
    const onData = () => setImmediate(check);
    const onEnd = () => reject(new Error(`stream ended without a matching line; got:\n${lines.join("\n")}`));
    stream.on("data", onData);
    stream.on("end", onEnd);
    check();
  });
}

/** Matches the JSON-RPC response to request `id` (a line that is not JSON matches nothing; the test checks those later). */
function answers(id: number): (line: string) => boolean {
  return (line) => {
    try {
      return (JSON.parse(line) as { id?: unknown }).id === id;
    } catch {
      return false;
    }
  };
}

describe("stdio hygiene", () => {
  it("writes nothing but JSON-RPC to stdout, logs JSON lines to stderr, and exits 0 when stdin closes", async () => {
    const child = spawn(process.execPath, [builtServer], {
      env: await testServerEnvironment({
        PATH: process.env["PATH"] ?? "",
        LOG_LEVEL: "debug",
        DATABASE_PATH: join(directory.path, "hygiene.db"),
      }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = collectLines(child.stdout);
    const stderr = collectLines(child.stderr);
    const send = (message: Record<string, unknown>) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    await lineMatching(child.stdout, stdout, answers(1));
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/list" });
    send({ id: 3, method: "tools/call", params: { name: "reasoning_linear", arguments: { content: "" } } });
    send({
      id: 4,
      method: "tools/call",
      params: { name: "reasoning_linear", arguments: { content: "needs a model" } },
    });
    send({ id: 5, method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
    // Calls run concurrently, so answers may come in any order: wait for each.
    for (const id of [2, 3, 4, 5]) await lineMatching(child.stdout, stdout, answers(id));
    child.stdin.end();
    const [exitCode] = (await once(child, "close")) as [number | null];

    expect(exitCode).toBe(0);
    const messages = stdout.map(
      (line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: Record<string, unknown>; error?: unknown },
    );
    expect(messages.every((message) => message.jsonrpc === "2.0")).toBe(true);
    messages.sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
    expect(messages.map((message) => message.id)).toEqual([1, 2, 3, 4, 5]);
    expect(messages[0]?.result).toMatchObject({ serverInfo: { name: "deliberate" } });
    expect(messages[2]?.result).toMatchObject({ isError: true });
    // No model configured: the call is handed to the caller (host-executed), not failed.
    expect(messages[3]?.result).toMatchObject({ structuredContent: { status: "needs_completion" } });
    expect(messages[4]?.error ?? messages[4]?.result?.["isError"]).toBeTruthy();

    const logs = stderr.map((line) => JSON.parse(line) as { level: string; message: string });
    expect(logs.every((entry) => ["debug", "info", "warn", "error"].includes(entry.level))).toBe(true);
    expect(logs.some((entry) => entry.message.includes("--print-config claude-code"))).toBe(true);
    expect(logs.some((entry) => entry.message === "tool call failed")).toBe(true);
    expect(logs.at(-1)).toMatchObject({ message: "shutting down", reason: "stdin closed" });
  });

  it("--print-config prints a pasteable snippet on stdout naming the absolute Node that runs it, and exits 0", async () => {
    const child = spawn(process.execPath, [builtServer, "--print-config", "claude-desktop"], {
      env: {
        PATH: process.env["PATH"] ?? "",
        DATABASE_PATH: join(directory.path, "print.db"),
        ANTHROPIC_API_KEY: "sk-ant-not-printed",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    const [exitCode] = (await once(child, "close")) as [number | null];
    expect(exitCode).toBe(0);
    expect(stdout).not.toContain("sk-ant-not-printed");
    expect(JSON.parse(stdout)).toMatchObject({
      mcpServers: {
        deliberate: {
          command: process.execPath,
          args: [builtServer],
          env: { DATABASE_PATH: join(directory.path, "print.db"), ANTHROPIC_API_KEY: "<ANTHROPIC_API_KEY>" },
        },
      },
    });
  });

  it("exits with code 2 and names the variable when the configuration is invalid", async () => {
    const child = spawn(process.execPath, [builtServer], {
      env: { PATH: process.env["PATH"] ?? "", LOG_LEVEL: "loud" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = collectLines(child.stdout);
    const stderr = collectLines(child.stderr);
    const [exitCode] = (await once(child, "close")) as [number | null];
    expect(exitCode).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr.join("\n")).toContain("LOG_LEVEL must be one of debug, info, warn, error");
  });

  it("refuses unknown toolsets at start (code 2), naming the variable and the toolsets there are", async () => {
    const child = spawn(process.execPath, [builtServer], {
      env: { PATH: process.env["PATH"] ?? "", DELIBERATE_TOOLSETS: "core,graphs" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = collectLines(child.stdout);
    const stderr = collectLines(child.stderr);
    const [exitCode] = (await once(child, "close")) as [number | null];
    expect(exitCode).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr.join("\n")).toMatch(
      /DELIBERATE_TOOLSETS names unknown toolset "graphs"\. Available: core, analysis, workflows, dialog, knowledge-graph, all/,
    );
  });

  it("--print-config lists the toolsets and passes DELIBERATE_TOOLSETS on", async () => {
    const child = spawn(process.execPath, [builtServer, "--print-config", "claude-code"], {
      env: { PATH: process.env["PATH"] ?? "", DELIBERATE_TOOLSETS: "core,dialog" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const stdout = collectLines(child.stdout);
    const stderr = collectLines(child.stderr);
    const [exitCode] = (await once(child, "close")) as [number | null];
    expect(exitCode).toBe(0);
    expect(stdout.join("\n")).toContain("-e DELIBERATE_TOOLSETS=core,dialog");
    const listing = stderr.join("\n");
    expect(listing).toContain("Serving toolsets core,dialog");
    expect(listing).toMatch(/core \(default\): reasoning_linear, .*reasoning_decision/);
    expect(listing).toMatch(/knowledge-graph: reasoning_execute_task, reasoning_end_session/);
  });
});

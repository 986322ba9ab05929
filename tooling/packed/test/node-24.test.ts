import { execFile } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { commandLines, readmeBlock, words } from "./support/readme.ts";
import { connectStdio, freshHome, startLogged, stop, userEnvironment } from "./support/user-processes.ts";

const run = promisify(execFile);
// Installed by npm running on Node 24 (the global setup), in an empty folder outside the workspace.
const folder = inject("installFolderNode24");
const node24 = inject("node24");
const homes: string[] = [];
const home = () => {
  const created = freshHome();
  homes.push(created);
  return created;
};
afterAll(() => {
  for (const created of homes) rmSync(created, { recursive: true, force: true });
});

describe("a user whose Node is 24: the tarballs installed and run on a Node 24 from npm", () => {
  it("is Node 24, and the driver the server loads there (better-sqlite3 13) works in the installed folder", async () => {
    expect((await run(node24, ["--version"])).stdout).toMatch(/^v24\./);
    const { stdout } = await run(
      node24,
      [
        "-e",
        "const Database = require('better-sqlite3-napi'); console.log(new Database(':memory:').prepare('select 41 + 1 as n').get().n)",
      ],
      { cwd: folder },
    );
    expect(stdout.trim()).toBe("42");
  });

  // better-sqlite3 12 derives its Database and Statement from node::ObjectWrap, whose destructor since Node 24.19
  // asserts a current Environment; a garbage collection outside JavaScript (V8's scavenge and memory-reducer tasks)
  // that finalizes one aborts the process: "Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook.
  // The server made such garbage at start (the driver check's probe database, pragma statements) and died within
  // seconds on Node 24.19+. On Node 22+ it now loads better-sqlite3 13 (Node-API; `better-sqlite3-napi`, see the
  // store's sqlite-driver.ts). This reproduces the abort deterministically with that driver (garbage of both
  // kinds, then allocation enough for a few scavenges); with better-sqlite3 12 it aborts every time.
  it("the driver the server loads on Node 22+ survives garbage collection of its objects (12 aborts on Node 24.19+)", async () => {
    const script = [
      "const Database = require('better-sqlite3-napi');",
      "new Database(':memory:').close();",
      "new Database(':memory:').pragma('foreign_keys = ON');",
      "let junk = [];",
      "const timer = setInterval(() => { for (let i = 0; i < 20000; i++) junk.push({ i }); if (junk.length > 200000) junk = []; }, 5);",
      "setTimeout(() => { clearInterval(timer); console.log('alive'); }, 3000);",
    ].join("\n");
    const outcome = await run(node24, ["-e", script], { cwd: folder }).then(
      (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
      (error: { code?: number; signal?: string; stdout?: string; stderr?: string }) => ({
        code: error.code ?? error.signal,
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "",
      }),
    );
    const aborted = /Assertion failed: \(env\) != nullptr/.test(outcome.stderr);
    expect(
      { code: outcome.code, stdout: outcome.stdout.trim() },
      aborted
        ? "Node 24.19+ aborts on better-sqlite3 12 objects collected outside JavaScript (node::ObjectWrap): fixed by better-sqlite3 13 (Node-API; needs Node 22+) or node:sqlite"
        : outcome.stderr,
    ).toEqual({ code: 0, stdout: "alive" });
  });

  it("the README's Claude Code line: npx starts it on Node 24, tools/list answers, the database is where the line says", async () => {
    const userHome = home();
    const env = userEnvironment({ home: userHome, nodeBinary: node24 });
    const line = commandLines(readmeBlock("claude-code")).find((candidate) => candidate.startsWith("claude mcp add"));
    const all = words(line ?? "", env);
    const launch = all.slice(all.indexOf("--") + 1);
    expect(launch.slice(0, 3)).toEqual(["npx", "-y", "@deliberate/mcp-server"]);
    const databasePath = join(userHome, ".local", "share", "deliberate", "deliberate.db");
    const [command, ...args] = launch;
    const { client } = await connectStdio({
      command: command ?? "",
      args,
      cwd: folder,
      env: { ...env, DATABASE_PATH: databasePath },
    });
    try {
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toEqual(expect.arrayContaining(["reasoning_linear", "reasoning_decision", "reasoning_preset"]));
      // A call that writes (keyless: the pending step and its resume token go into the SQLite file through the
      // Node 24 build of better-sqlite3) and answers with the prompts for the calling agent.
      const result = await client.callTool({
        name: "reasoning_linear",
        arguments: { content: "Is 7 prime? No divisor between 2 and its square root." },
      });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const [first] = result.content as Array<{ type: string; text: string }>;
      expect(JSON.parse(first?.text ?? "{}")).toMatchObject({ status: "needs_completion", tool: "reasoning_linear" });
      // More calls, then a pause: the garbage they leave is collected, by V8's own tasks too, and the server lives on
      // (with better-sqlite3 12 it aborted within seconds of starting).
      for (let index = 0; index < 40; index += 1) {
        const more = await client.callTool({
          name: "reasoning_linear",
          arguments: { content: `Step ${index}: 7 has no divisor but 1 and itself.` },
        });
        expect(more.isError, JSON.stringify(more.content)).toBeFalsy();
      }
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    expect(existsSync(databasePath)).toBe(true);
    // The launcher keeps Node 22+'s module compile cache in the user's cache folder (module.enableCompileCache).
    const cacheHome = env["XDG_CACHE_HOME"] ?? join(userHome, ".cache");
    expect(readdirSync(join(cacheHome, "deliberate", "node-compile-cache")).length).toBeGreaterThan(0);
  });

  it("--print-config names the Node 24 that runs it", async () => {
    const env = userEnvironment({ home: home(), nodeBinary: node24 });
    const [line] = commandLines(readmeBlock("print-config"));
    const [command, ...args] = words(line ?? "", env);
    const printed = await run(command ?? "", args, { cwd: folder, env });
    expect(printed.stdout).toContain(
      ` -- ${node24} ${join(folder, "node_modules", "@deliberate", "mcp-server", "dist", "main.js")}\n`,
    );
  });

  it("deliberate-api on Node 24 serves /healthz", async () => {
    const env = userEnvironment({ home: home(), nodeBinary: node24, extra: { PORT: "0" } });
    const [line] = commandLines(readmeBlock("http-api"));
    const [command, ...args] = words(line ?? "", env);
    const { child, entry } = await startLogged({
      command: command ?? "",
      args,
      cwd: folder,
      env,
      ready: (logged) => logged["message"] === "deliberate-api listening",
    });
    try {
      const health = await fetch(`${String(entry["url"])}/healthz`);
      expect(health.status).toBe(200);
      expect(((await health.json()) as { status: string }).status).toBe("ok");
    } finally {
      await stop(child);
    }
  });
});

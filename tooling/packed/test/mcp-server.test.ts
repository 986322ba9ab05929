import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { commandLines, readmeBlock, words } from "./support/readme.ts";
import { connectStdio, freshHome, startLogged, stop, userEnvironment } from "./support/user-processes.ts";

const run = promisify(execFile);
const installFolder = inject("installFolder");
const node22 = inject("node22");
const mirror = inject("prebuildMirror");
const homes: string[] = [];
const home = () => {
  const folder = freshHome();
  homes.push(folder);
  return folder;
};
afterAll(() => {
  for (const folder of homes) rmSync(folder, { recursive: true, force: true });
});

/** Lists the tools of the server `line` starts (a README command line) and closes it. */
async function toolsOf(line: string[], env: Record<string, string>, cwd = installFolder): Promise<string[]> {
  const [command, ...args] = line;
  const { client } = await connectStdio({ command: command ?? "", args, cwd, env });
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await client.close();
  }
}

describe("deliberate-mcp from the packed tarball, in a folder with no monorepo", () => {
  it("the README's Claude Code line: npx starts it on this Node, tools/list answers, the database is where the line says", async () => {
    const userHome = home();
    const env = userEnvironment({ home: userHome });
    const line = commandLines(readmeBlock("claude-code")).find((candidate) => candidate.startsWith("claude mcp add"));
    expect(line).toBeDefined();
    const all = words(line ?? "", env);
    const launch = all.slice(all.indexOf("--") + 1);
    expect(launch.slice(0, 3)).toEqual(["npx", "-y", "@deliberate/mcp-server"]);
    const variables = Object.fromEntries(
      all.flatMap((word, index) =>
        all[index - 1] === "-e" ? [word.split(/=(.*)/s).slice(0, 2) as [string, string]] : [],
      ),
    );
    expect(variables["DATABASE_PATH"]).toBe(join(userHome, ".local", "share", "deliberate", "deliberate.db"));
    const tools = await toolsOf(launch, { ...env, ...variables });
    // The default toolset (core); DELIBERATE_TOOLSETS=all lists the rest.
    expect(tools).toEqual(expect.arrayContaining(["reasoning_linear", "reasoning_decision", "reasoning_preset"]));
    expect(existsSync(variables["DATABASE_PATH"] ?? "")).toBe(true);
  });

  it("the README's Claude Desktop entry, launched in a project folder: the default database is in the user's data directory, not that folder", async () => {
    const userHome = home();
    // A project inside the user's folder: npx finds the installed package up the tree (as it finds its own
    // cached copy after the first download), and the server runs with the project as its working directory.
    const elsewhere = mkdtempSync(join(installFolder, "project-"));
    const entry = (
      JSON.parse(readmeBlock("claude-desktop")) as {
        mcpServers: { deliberate: { command: string; args: string[]; env?: Record<string, string> } };
      }
    ).mcpServers.deliberate;
    expect([entry.command, ...entry.args]).toEqual(["npx", "-y", "@deliberate/mcp-server"]);
    // The README's DATABASE_PATH is a macOS example: this run leaves it out to check the default instead.
    const env = userEnvironment({ home: userHome });
    const tools = await toolsOf([entry.command, ...entry.args], env, elsewhere);
    expect(tools).toContain("reasoning_decision");
    expect(existsSync(join(userHome, ".local", "share", "deliberate", "deliberate.db"))).toBe(true);
    expect(existsSync(join(elsewhere, "data"))).toBe(false);
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("the README's --print-config names the absolute Node that runs it and the installed script", async () => {
    const userHome = home();
    const env = userEnvironment({ home: userHome });
    const [line] = commandLines(readmeBlock("print-config"));
    const [command, ...args] = words(line ?? "", env);
    const printed = await run(command ?? "", args, { cwd: installFolder, env });
    expect(printed.stdout).toBe(
      `claude mcp add deliberate -e DATABASE_PATH=${join(userHome, ".local", "share", "deliberate", "deliberate.db")} -- ${process.execPath} ${join(installFolder, "node_modules", "@deliberate", "mcp-server", "dist", "main.js")}\n`,
    );
  });
});

describe("deliberate-mcp --http from the packed tarball", () => {
  it("the README's command serves MCP, /healthz and the session viewer at /ui (its files are in the package)", async () => {
    const env = userEnvironment({ home: home() });
    const [line] = commandLines(readmeBlock("mcp-http"));
    const [command, ...args] = words(line ?? "", env);
    expect([command, ...args]).toEqual(["npx", "-y", "@deliberate/mcp-server", "--http"]);
    // Port 0 instead of 8080: any free port (tests run side by side).
    const { child, entry } = await startLogged({
      command: command ?? "",
      args: [...args, "--port", "0"],
      cwd: installFolder,
      env,
      ready: (logged) => String(logged["message"]).startsWith("Session viewer: "),
    });
    try {
      const viewer = String(entry["url"]);
      const base = viewer.replace(/\/ui$/, "");
      const health = await fetch(`${base}/healthz`);
      const answer = await health.text();
      expect(health.status, answer).toBe(200);
      expect(JSON.parse(answer)).toMatchObject({ status: "ok" });
      const page = await fetch(viewer);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");
    } finally {
      await stop(child);
    }
  });
});

describe("another Node", () => {
  // Node 22 and later load better-sqlite3 13 (Node-API, binaries inside the package): a folder installed with this
  // Node (20) runs on them as it is. Node 20 loads better-sqlite3 12, built for the Node that installed it.
  const hostOnNode20 = Number(process.versions.node.split(".")[0]) < 22;

  it("installed with this Node, launched by a Node 22 from npm: the README's npx command works as installed, and --print-config names Node 22", async () => {
    const env = userEnvironment({ home: home(), nodeBinary: node22 });
    // The README's command, with Node 22 first on PATH (npm and the bin's `#!/usr/bin/env node` run on it).
    const tools = await toolsOf(["npx", "-y", "@deliberate/mcp-server"], env, installFolder);
    expect(tools).toContain("reasoning_linear");
    expect(
      (await run("npx", ["-y", "@deliberate/mcp-server", "--print-config", "claude-code"], { cwd: installFolder, env }))
        .stdout,
    ).toContain(` -- ${node22} `);
    const main = join(installFolder, "node_modules", "@deliberate", "mcp-server", "dist", "main.js");
    const printed = await run(node22, [main, "--print-config", "claude-desktop"], { cwd: installFolder, env });
    expect(
      (JSON.parse(printed.stdout) as { mcpServers: { deliberate: { command: string } } }).mcpServers.deliberate.command,
    ).toBe(node22);
  });

  it.runIf(hostOnNode20)(
    "installed on Node 24, launched by this Node 20: one line naming both Nodes and the command that fixes it; that command makes it work",
    { timeout: 900_000 },
    async () => {
      // A copy of the Node 24 user's folder (its better-sqlite3 12 built for Node 24), so the rebuild leaves the shared one as it was.
      const folder = mkdtempSync(join(tmpdir(), "deliberate-from-node24-"));
      homes.push(folder);
      cpSync(inject("installFolderNode24"), folder, { recursive: true, verbatimSymlinks: true });
      const userHome = home();
      const env = userEnvironment({ home: userHome });
      const main = join(folder, "node_modules", "@deliberate", "mcp-server", "dist", "main.js");
      const failed = await run(process.execPath, [main], { cwd: folder, env }).then(
        () => undefined,
        (error: { code?: number; stdout?: string; stderr?: string }) => error,
      );
      expect(failed?.code).toBe(1);
      expect(failed?.stdout).toBe("");
      const lines = (failed?.stderr ?? "").split("\n").filter((line) => line !== "");
      expect(lines).toHaveLength(1);
      const [line = ""] = lines;
      expect(line).toContain("was built for Node 24 (NODE_MODULE_VERSION 137)");
      expect(line).toContain(`this is Node ${process.versions.node} (NODE_MODULE_VERSION ${process.versions.modules}`);
      // The same refusal for --print-config: it would name a Node that cannot run the server.
      await expect(
        run(process.execPath, [main, "--print-config", "claude-code"], { cwd: folder, env }),
      ).rejects.toMatchObject({ code: 1 });
      const fix = /Fix: (.*?) — or launch/.exec(line)?.[1];
      expect(fix).toMatch(
        new RegExp(`^cd ${folder.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} && PATH=.* npm rebuild better-sqlite3$`),
      );
      // The line's command as given (it puts this Node first on PATH itself).
      await run("sh", ["-c", fix ?? "false"], {
        env: userEnvironment({ home: userHome, extra: { npm_config_better_sqlite3_binary_host: mirror.url } }),
        timeout: 840_000,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(await toolsOf(["npx", "-y", "@deliberate/mcp-server"], env, folder)).toContain("reasoning_linear");
    },
  );
});

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { findWorkspaceRoot, main, parseArguments } from "../src/cli.ts";
import { fixtureWorkspace } from "./support/fixture-workspace.ts";

const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
// The fixture lives outside the workspace: tsx by its path, not its name.
const tsx = import.meta.resolve("tsx");
const fixture = fixtureWorkspace(
  { scripts: { check: "echo root check" } },
  {
    lib: { name: "lib", scripts: { build: "echo building", test: "echo lib tested" } },
    app: { name: "app", scripts: { test: "echo app failing; exit 4" }, dependencies: { lib: "workspace:*" } },
    slow: { name: "slow", scripts: { hang: "sleep 30 & echo $! > ../../sleep.pid; echo waiting; wait" } },
  },
);
afterAll(() => fixture.remove());

function start(args: string[], cwd = join(fixture.directory, "packages", "app")): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ["--import", tsx, cli, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  return { child, output: () => output };
}

async function exitOf(args: string[], cwd = join(fixture.directory, "packages", "app")): Promise<{ code: number | null; output: string }> {
  let output = "";
  const write = (text: string) => {
    output += text;
  };
  const code = await main(args, { cwd, write, writeError: write });
  return { code, output };
}

describe("the tasks command", () => {
  it("reads its arguments, and says what is wrong with them", () => {
    expect(parseArguments(["--filter", "a", "--concurrency", "3", "test", "//#typecheck"])).toEqual({ scripts: ["test", "//#typecheck"], filter: ["a"], concurrency: 3, withoutBuilds: false });
    expect(parseArguments(["--without-builds", "test"])).toEqual({ scripts: ["test"], filter: [], withoutBuilds: true });
    expect(parseArguments([])).toEqual({ error: "name at least one script" });
    expect(parseArguments(["test", "--filter"])).toEqual({ error: "--filter needs a value" });
    expect(parseArguments(["--concurrency", "0", "test"])).toEqual({ error: '--concurrency must be a whole number of at least 1, got "0"' });
    expect(parseArguments(["--concurrency", "2.5", "test"])).toMatchObject({ error: expect.stringContaining("2.5") });
    expect(parseArguments(["--force", "test"])).toEqual({ error: "unknown option --force" });
    expect(findWorkspaceRoot(join(fixture.directory, "packages", "lib"))).toBe(fixture.directory);
  });

  it("runs from any folder of the workspace, prints a summary and exits 1 when a task failed", async () => {
    const { code, output } = await exitOf(["//#check", "test"]);
    expect(code).toBe(1);
    expect(output).toContain("fixture-root:check: root check\n");
    expect(output).toContain("lib:test: lib tested\n");
    expect(output).toContain("app:test: app failing\n");
    expect(output).toMatch(/app#test\s+failed\s+\d+\.\ds {2}\(exit code 4\)/);
    expect(output).toContain("Tasks: 3 passed, 1 failed, 4 total");
  });

  it("exits 0 when every task passed", async () => {
    const { code, output } = await exitOf(["--filter", "lib", "test"]);
    expect(code).toBe(0);
    expect(output).toContain("Tasks: 2 passed, 2 total");
  });

  it("exits 2 with the reason and the usage for a command it cannot run", async () => {
    const unknown = await exitOf(["--filter", "nope", "test"]);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain("tasks: --filter nope: no such package in the workspace");
    const usage = await exitOf([]);
    expect(usage.code).toBe(2);
    expect(usage.output).toContain("usage: tasks");
    const outside = await exitOf(["test"], "/");
    expect(outside).toEqual({ code: 2, output: "tasks: no pnpm-workspace.yaml in / or above\n" });
  });

  // The one test of the command as a process: the signal.
  it("on Ctrl-C stops the running scripts and what they started, and exits 130", async () => {
    const { child, output } = start(["hang"]);
    while (!output().includes("slow:hang: waiting")) await new Promise((resolve) => setTimeout(resolve, 20));
    const sleeper = Number(readFileSync(join(fixture.directory, "sleep.pid"), "utf8"));
    child.kill("SIGINT");
    const [code] = (await once(child, "exit")) as [number | null];
    expect(code).toBe(130);
    expect(output()).toMatch(/slow#hang\s+failed .*ended by SIGTERM/);
    expect(existsSync(`/proc/${sleeper}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${sleeper}/stat`, "utf8"))).toBe(false);
  });
});

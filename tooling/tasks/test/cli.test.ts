import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type CliContext, findWorkspaceRoot, main, parseArguments } from "../src/cli.ts";
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
    api: {
      name: "api",
      scripts: { show: 'echo "api dialect=$DELIBERATE_TEST_ENGINE_DIALECT db=$DELIBERATE_TEST_DATABASE_URL"' },
      deliberate: { testRun: "own", engineDialect: true },
    },
    replicas: {
      name: "replicas",
      scripts: { show: 'echo "replicas db=$DELIBERATE_TEST_DATABASE_URL"' },
      deliberate: { testRun: "own" },
    },
  },
);
afterAll(() => fixture.remove());

function start(
  args: string[],
  cwd = join(fixture.directory, "packages", "app"),
): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ["--import", tsx, cli, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
  return { child, output: () => output };
}

async function exitOf(
  args: string[],
  cwd = join(fixture.directory, "packages", "app"),
  extra: Partial<CliContext> = {},
): Promise<{ code: number | null; output: string }> {
  let output = "";
  const write = (text: string) => {
    output += text;
  };
  const code = await main(args, { cwd, write, writeError: write, ...extra });
  return { code, output };
}

const {
  DELIBERATE_TEST_DATABASE_URL: _server,
  DELIBERATE_TEST_ENGINE_DIALECT: _dialect,
  DELIBERATE_TEST_DIALECTS: _dialects,
  ...quietEnv
} = process.env;

describe("the tasks command", () => {
  it("reads its arguments, and says what is wrong with them", () => {
    const none = { withoutBuilds: false, ownTestRuns: false, testPostgres: false };
    expect(parseArguments(["--filter", "a", "--concurrency", "3", "test", "//#typecheck"])).toEqual({
      scripts: ["test", "//#typecheck"],
      filter: ["a"],
      concurrency: 3,
      ...none,
    });
    expect(parseArguments(["--without-builds", "test"])).toEqual({
      scripts: ["test"],
      filter: [],
      ...none,
      withoutBuilds: true,
    });
    expect(parseArguments(["--test-postgres", "--own-test-runs", "--engine-dialect", "postgres", "test"])).toEqual({
      scripts: ["test"],
      filter: [],
      ...none,
      ownTestRuns: true,
      testPostgres: true,
      engineDialect: "postgres",
    });
    expect(parseArguments(["--engine-dialect", "mysql", "test"])).toEqual({
      error: '--engine-dialect must be sqlite or postgres, got "mysql"',
    });
    expect(parseArguments(["test", "--engine-dialect"])).toEqual({ error: "--engine-dialect needs a value" });
    expect(parseArguments([])).toEqual({ error: "name at least one script" });
    expect(parseArguments(["test", "--filter"])).toEqual({ error: "--filter needs a value" });
    expect(parseArguments(["--concurrency", "0", "test"])).toEqual({
      error: '--concurrency must be a whole number of at least 1, got "0"',
    });
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
    expect(output).toMatch(/app#test\s+failed\s+\d+\.\ds\s+cpu\s+\d+\.\ds {2}\(exit code 4\)/);
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

  it("runs the own-run packages inside one shared Postgres it starts and stops, with the engine's dialect set", async () => {
    const events: string[] = [];
    const startPostgres = async () => {
      events.push("started");
      return { adminUrl: "postgres://shared@127.0.0.1:1/postgres", stop: async () => void events.push("stopped") };
    };
    const sqlite = await exitOf(["--test-postgres", "--own-test-runs", "show"], undefined, {
      env: quietEnv,
      startPostgres,
    });
    expect(sqlite.code).toBe(0);
    expect(sqlite.output).toContain("api:show: api dialect= db=postgres://shared@127.0.0.1:1/postgres\n");
    expect(sqlite.output).toContain("replicas:show: replicas db=postgres://shared@127.0.0.1:1/postgres\n");
    expect(events).toEqual(["started", "stopped"]);
    const postgres = await exitOf(
      ["--test-postgres", "--engine-dialect", "postgres", "--own-test-runs", "show"],
      undefined,
      { env: quietEnv, startPostgres },
    );
    expect(postgres.output).toContain("api:show: api dialect=postgres db=postgres://shared@127.0.0.1:1/postgres\n");
    expect(postgres.output).not.toContain("replicas:show");
    expect(postgres.output).toContain("Tasks: 1 passed, 1 total");
  });

  it("starts no Postgres when one is given, and says so when none could be started (exit 1)", async () => {
    const refused = async () => {
      throw new Error("initdb failed");
    };
    const given = await exitOf(["--test-postgres", "--own-test-runs", "show"], undefined, {
      env: { ...quietEnv, DELIBERATE_TEST_DATABASE_URL: "postgres://mine@127.0.0.1:2/postgres" },
      startPostgres: refused,
    });
    expect(given.code).toBe(0);
    expect(given.output).toContain("api:show: api dialect= db=postgres://mine@127.0.0.1:2/postgres\n");
    const failed = await exitOf(["--test-postgres", "--own-test-runs", "show"], undefined, {
      env: quietEnv,
      startPostgres: refused,
    });
    expect(failed).toEqual({ code: 1, output: "tasks: --test-postgres: initdb failed\n" });
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
    expect(existsSync(`/proc/${sleeper}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${sleeper}/stat`, "utf8"))).toBe(
      false,
    );
  });
});

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planTasks, type Task } from "../src/plan.ts";
import { parseTimes, runTasks } from "../src/run-tasks.ts";
import { summarize } from "../src/summary.ts";
import { readWorkspace } from "../src/workspace.ts";
import { fixtureWorkspace } from "./support/fixture-workspace.ts";

const removers: Array<() => void> = [];
afterAll(() => {
  for (const remove of removers) remove();
});

function workspaceOf(...args: Parameters<typeof fixtureWorkspace>) {
  const fixture = fixtureWorkspace(...args);
  removers.push(fixture.remove);
  return { directory: fixture.directory, workspace: readWorkspace(fixture.directory) };
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Waits for `pid` to be gone, polling; false if it still runs at the deadline. */
async function exitsWithin(pid: number, milliseconds: number): Promise<boolean> {
  const deadline = Date.now() + milliseconds;
  while (isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

async function run(directory: string, tasks: Task[], options: { concurrency?: number; signal?: AbortSignal } = {}) {
  let output = "";
  const results = await runTasks(tasks, { rootDirectory: directory, write: (text) => (output += text), ...options });
  return { results: Object.fromEntries(results.map((result) => [result.id, result])), output };
}

describe("runTasks", () => {
  it("starts a test once its builds have passed, and prefixes each line with the package and script", async () => {
    const { directory, workspace } = workspaceOf(
      {},
      {
        lib: {
          name: "lib",
          scripts: { build: "sleep 0.3 && touch built && printf 'bundled\\nno newline at the end'" },
        },
        app: {
          name: "app",
          scripts: { build: "touch built", test: "test -f built && test -f ../lib/built && echo checked >&2" },
          dependencies: { lib: "workspace:*" },
        },
      },
    );
    const { results, output } = await run(directory, planTasks(workspace, { tasks: ["test"] }));
    expect(Object.values(results).map((result) => result.status)).toEqual(["passed", "passed", "passed"]);
    expect(output).toContain("lib:build: bundled\nlib:build: no newline at the end\n");
    expect(output).toContain("app:test: checked\n");
  });

  it("skips what depends on a failed task, naming it, and still runs what does not", async () => {
    const { directory, workspace } = workspaceOf(
      {},
      {
        lib: { name: "lib", scripts: { build: "echo broken; exit 3" } },
        app: { name: "app", scripts: { test: "true" }, dependencies: { lib: "workspace:*" } },
        other: { name: "other", scripts: { test: "kill -TERM $$" } },
        fine: { name: "fine", scripts: { test: "true" } },
      },
    );
    const { results, output } = await run(directory, planTasks(workspace, { tasks: ["test"] }));
    expect(results["lib#build"]).toMatchObject({ status: "failed", reason: "exit code 3" });
    expect(results["app#test"]).toMatchObject({ status: "skipped", reason: "not run: lib#build did not pass" });
    expect(results["other#test"]).toMatchObject({ status: "failed", reason: "ended by SIGTERM" });
    expect(results["fine#test"]).toMatchObject({ status: "passed" });
    expect(output).toContain("lib:build: broken\n");
  });

  it("measures each script's CPU time, its children's included, and sums it in the summary", async () => {
    // 400 ms of user CPU in a grandchild (sh, then node), counted by CPU use, not by the clock.
    const burn = `node -e "const until = process.cpuUsage().user + 400000; while (process.cpuUsage().user < until);"`;
    const { directory, workspace } = workspaceOf(
      {},
      { busy: { name: "busy", scripts: { test: burn } }, idle: { name: "idle", scripts: { test: "exit 2" } } },
    );
    const { results } = await run(directory, planTasks(workspace, { tasks: ["test"] }));
    expect(results["busy#test"]?.cpuMs).toBeGreaterThanOrEqual(400);
    expect(results["idle#test"]).toMatchObject({ status: "failed", reason: "exit code 2", cpuMs: expect.any(Number) });
    const summary = summarize(Object.values(results), 1_000);
    expect(summary).toMatch(/busy#test\s+passed\s+\d+\.\ds\s+cpu\s+\d+\.\ds\n/);
    expect(summary).toMatch(/ CPU: {3}\d+\.\ds\n/);
  });

  it("reads the children's line of `times` (dash and bash spell it alike), and nothing else", () => {
    expect(parseTimes("0m0.010000s 0m0.002000s\n1m2.500000s 0m0.250000s\n")).toBe(62_750);
    expect(parseTimes("0m0.01s 0m0.00s\n0m3.20s 0m0.80s")).toBe(4_000);
    expect(parseTimes("")).toBeUndefined();
    expect(parseTimes("0m0.01s 0m0.00s\n")).toBeUndefined();
  });

  it("puts the package's node_modules/.bin first on PATH, then the root's", async () => {
    const { directory, workspace } = workspaceOf(
      {},
      { app: { name: "app", scripts: { test: "greet" }, bin: { greet: "echo hello from the package bin" } } },
    );
    const { results, output } = await run(directory, planTasks(workspace, { tasks: ["test"] }));
    expect(results["app#test"]?.status).toBe("passed");
    expect(output).toContain("app:test: hello from the package bin\n");
  });

  it("runs no more than `concurrency` scripts at once", async () => {
    // Each script fails if another holds the lock while it runs.
    const locked = "if [ -e ../../lock ]; then exit 9; fi; touch ../../lock; sleep 0.2; rm ../../lock";
    const { directory, workspace } = workspaceOf(
      {},
      {
        a: { name: "a", scripts: { test: locked } },
        b: { name: "b", scripts: { test: locked } },
        c: { name: "c", scripts: { test: locked } },
      },
    );
    const { results } = await run(directory, planTasks(workspace, { tasks: ["test"] }), { concurrency: 1 });
    expect(Object.values(results).map((result) => result.status)).toEqual(["passed", "passed", "passed"]);
    const racing = await run(directory, planTasks(workspace, { tasks: ["test"] }));
    expect(Object.values(racing.results).some((result) => result.status === "failed")).toBe(true);
  });

  it("on abort stops each running script with what it started, and starts nothing more", async () => {
    const { directory, workspace } = workspaceOf(
      {},
      {
        slow: {
          name: "slow",
          scripts: {
            build: "sh -c 'sleep 30; touch ../../grandchild-survived' & echo $! > ../../grandchild.pid; wait",
          },
        },
        app: { name: "app", scripts: { test: "touch ../../test-ran" }, dependencies: { slow: "workspace:*" } },
      },
    );
    const controller = new AbortController();
    const pidFile = join(directory, "grandchild.pid");
    const running = run(directory, planTasks(workspace, { tasks: ["test"] }), { signal: controller.signal });
    while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "")
      await new Promise((resolve) => setTimeout(resolve, 20));
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    controller.abort();
    const { results } = await running;
    expect(results["slow#build"]).toMatchObject({ status: "failed", reason: "ended by SIGTERM" });
    expect(results["app#test"]).toMatchObject({ status: "skipped", reason: "not run: interrupted" });
    // The signal reaches the grandchild at once, but it exits (and is reaped by init) in its own time.
    expect(await exitsWithin(grandchild, 15_000)).toBe(true);
    expect(existsSync(join(directory, "test-ran"))).toBe(false);
  });

  it("refuses a dependency that is not among the tasks, and skips tasks waiting on each other", async () => {
    const task = (id: string, dependsOn: string[]): Task => ({
      id,
      packageName: id,
      script: "test",
      command: "true",
      directory: "/",
      dependsOn,
    });
    expect(() => runTasks([task("a", ["b"])], { rootDirectory: "/" })).toThrow(
      "a depends on b, which is not among the tasks",
    );
    const { results } = await run("/", [task("a", ["b"]), task("b", ["a"]), task("c", [])]);
    expect(results["a"]).toMatchObject({ status: "skipped", reason: "not run: its dependencies form a cycle" });
    expect(results["b"]?.status).toBe("skipped");
    expect(results["c"]?.status).toBe("passed");
  });
});

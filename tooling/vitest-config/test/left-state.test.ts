import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { describeChanges, restoreLeftState, snapshotLeftState } from "../left-state.js";

const fixture = fileURLToPath(new URL("../fixtures/left-state", import.meta.url));
const vitest = fileURLToPath(new URL("../node_modules/.bin/vitest", import.meta.url));

describe("the left-state check", () => {
  let before: ReturnType<typeof snapshotLeftState> | undefined;
  afterEach(() => {
    if (before) restoreLeftState(before);
  });

  it("names each variable set, changed or deleted (not its value), and each global replaced; restoring puts them back", () => {
    before = snapshotLeftState();
    process.env["LEFT_STATE_SET"] = "secret-value";
    const original = Math.random;
    Math.random = () => 0.5;
    const fetch = globalThis.fetch;
    globalThis.fetch = (() => Promise.reject(new Error("stub"))) as typeof fetch;
    const changes = describeChanges(before, snapshotLeftState());
    expect(changes).toEqual(["process.env.LEFT_STATE_SET set", "globalThis.fetch replaced", "Math.random replaced"]);
    expect(changes.join(" ")).not.toContain("secret-value");
    restoreLeftState(before);
    expect(describeChanges(before, snapshotLeftState())).toEqual([]);
    expect(Math.random).toBe(original);
    expect(globalThis.fetch).toBe(fetch);
    expect(process.env["LEFT_STATE_SET"]).toBeUndefined();
  });

  it("sees a changed and a deleted variable, the working folder and the exit code", () => {
    process.env["LEFT_STATE_KEPT"] = "one";
    process.env["LEFT_STATE_GONE"] = "two";
    before = snapshotLeftState();
    process.env["LEFT_STATE_KEPT"] = "other";
    delete process.env["LEFT_STATE_GONE"];
    process.chdir("/");
    process.exitCode = 3;
    const changes = describeChanges(before, snapshotLeftState());
    restoreLeftState(before);
    delete process.env["LEFT_STATE_KEPT"];
    delete process.env["LEFT_STATE_GONE"];
    before = undefined;
    expect(changes).toEqual([
      "process.env.LEFT_STATE_KEPT changed",
      "process.env.LEFT_STATE_GONE deleted",
      "the working folder changed to / (process.chdir)",
      "process.exitCode set to 3",
    ]);
  });

  // The guard in a real run with the shared run's settings: the file that leaves state behind fails the run, by name,
  // and the other file of the same worker finds everything put back.
  it("fails the run naming the file that left state behind, and the next file starts clean", async () => {
    const { VITEST: _v, VITEST_POOL_ID: _p, VITEST_WORKER_ID: _w, VITEST_MODE: _m, NODE_ENV: _n, ...env } = process.env;
    const failure = await promisify(execFile)(
      vitest,
      ["run", "--config", "vitest.config.js", "--reporter", "verbose"],
      { cwd: fixture, env: { ...env, NO_COLOR: "1" } },
    ).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const output = `${failure?.stdout}${failure?.stderr}`;
    expect(output).toMatch(
      /1-leaky\.test\.ts left global state changed: process\.env\.LEFT_STATE_FIXTURE set; the working folder changed to .*; globalThis\.setTimeout replaced/,
    );
    expect(output).toMatch(/✓ .*2-clean\.test\.ts/);
    expect(output).toMatch(/Tests\s+2 passed/);
  }, 120_000);
});

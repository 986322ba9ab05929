import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  forEngineDialect,
  groupConfig,
  leftStateGuard,
  ownRunPackages,
  separateRunPackages,
  sourcesGroup,
  testedPackages,
  testSettings,
} from "../suites.js";

const workspaceRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** A workspace whose packages have the given `deliberate` settings (undefined: none) and a vitest.config.ts, and a package without tests. */
function fixtureRoot(packages: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), "deliberate-suites-"));
  created.push(root);
  for (const [pkg, deliberate] of Object.entries(packages)) {
    mkdirSync(join(root, pkg), { recursive: true });
    writeFileSync(
      join(root, pkg, "package.json"),
      JSON.stringify({ name: `@x/${pkg.split("/")[1]}`, ...(deliberate === undefined ? {} : { deliberate }) }),
    );
    writeFileSync(join(root, pkg, "vitest.config.ts"), "export default {};\n");
  }
  mkdirSync(join(root, "packages", "docs"), { recursive: true });
  return root;
}

const created: string[] = [];
afterEach(() => {
  for (const root of created.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("the test groups", () => {
  it("puts every tested package of the workspace in exactly one run: the sources run, a run of its own, or a separate one", () => {
    const tested = testedPackages(workspaceRoot);
    const own = ownRunPackages(workspaceRoot);
    const separate = separateRunPackages(workspaceRoot);
    expect(own).toEqual([
      "packages/self-improvement",
      "packages/viewer",
      "services/client",
      "services/mcp-server",
      "tooling/drift",
      "tooling/replicas",
    ]);
    expect(separate).toEqual(["tooling/packed"]);
    expect(tested).toEqual(
      expect.arrayContaining([
        "packages/engine",
        "services/http-api",
        "tooling/tasks",
        "tooling/vitest-config",
        ...own,
        ...separate,
      ]),
    );
    const sources = sourcesGroup(workspaceRoot);
    expect([...sources, ...own, ...separate].sort()).toEqual([...tested].sort());
  });

  it("runs each separate package in CI: a root script names it, and .ci/run calls that script", () => {
    const scripts = (
      JSON.parse(readFileSync(join(workspaceRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    const ci = readFileSync(join(workspaceRoot, ".ci", "run"), "utf8");
    for (const pkg of separateRunPackages(workspaceRoot)) {
      const { name } = JSON.parse(readFileSync(join(workspaceRoot, pkg, "package.json"), "utf8")) as { name: string };
      const script = Object.keys(scripts).find((key) => scripts[key] === `pnpm --filter ${name} test`);
      expect(script, `a root script "pnpm --filter ${name} test"`).toBeDefined();
      expect(ci).toMatch(new RegExp(`^pnpm ${script}$`, "m"));
    }
  });

  it("reads which run a package belongs to from its package.json, and finds only folders with a vitest.config.ts", () => {
    const root = fixtureRoot({
      "packages/engine": { engineDialect: true },
      "packages/store": undefined,
      "services/api": { testRun: "own", engineDialect: true },
      "tooling/replicas": { testRun: "own" },
      "tooling/packed": { testRun: "separate" },
    });
    expect(testedPackages(root)).toEqual([
      "packages/engine",
      "packages/store",
      "services/api",
      "tooling/packed",
      "tooling/replicas",
    ]);
    expect(ownRunPackages(root)).toEqual(["services/api", "tooling/replicas"]);
    expect(separateRunPackages(root)).toEqual(["tooling/packed"]);
    expect(sourcesGroup(root)).toEqual(["packages/engine", "packages/store"]);
    expect(forEngineDialect(root, sourcesGroup(root), "postgres")).toEqual(["packages/engine"]);
    expect(forEngineDialect(root, ownRunPackages(root), "postgres")).toEqual(["services/api"]);
    expect(forEngineDialect(root, sourcesGroup(root), "sqlite")).toEqual(["packages/engine", "packages/store"]);
  });

  it("refuses settings it does not know, naming the file, the field and the values it takes", () => {
    expect(testSettings({})).toEqual({ testRun: "shared", engineDialect: false });
    expect(() => testSettings({ deliberate: { testRun: "alone" } }, "p/package.json")).toThrow(
      'p/package.json: "deliberate.testRun" must be "own", "separate" or "shared" (the default), got "alone"',
    );
    expect(() => testSettings({ deliberate: { engineDialect: "yes" } }, "p/package.json")).toThrow(
      'p/package.json: "deliberate.engineDialect" must be true or false, got "yes"',
    );
    expect(() => testSettings({ deliberate: ["own"] }, "p/package.json")).toThrow(
      'p/package.json: "deliberate" must be an object',
    );
    const root = fixtureRoot({ "packages/engine": { testRun: 1 } });
    expect(() => sourcesGroup(root)).toThrow(
      `${join(root, "packages/engine/package.json")}: "deliberate.testRun" must be "own", "separate" or "shared"`,
    );
  });

  it("runs the packages' test files with the shared settings and the left-state guard, in one root", () => {
    const config = groupConfig({
      root: "/w",
      packages: ["packages/a", "tooling/b"],
      globalSetup: ["setup.ts"],
      maxWorkers: 3,
    });
    expect(config.root).toBe("/w");
    expect(config.test).toMatchObject({
      include: [
        "packages/a/src/**/*.test.ts",
        "packages/a/test/**/*.test.ts",
        "tooling/b/src/**/*.test.ts",
        "tooling/b/test/**/*.test.ts",
      ],
      globalSetup: ["setup.ts"],
      setupFiles: [leftStateGuard],
      maxWorkers: 3,
      isolate: false,
      pool: "forks",
      testTimeout: 30_000,
    });
    expect(
      groupConfig({ root: "/w", packages: [], globalSetup: [], maxWorkers: 1, testTimeout: 5, hookTimeout: 6 }).test,
    ).toMatchObject({ testTimeout: 5, hookTimeout: 6 });
  });
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkRootTestScripts, engineDialectPackages, forEngineDialect, groupConfig, ownRunPackages, sourcesGroup, testedPackages } from "../suites.js";

const workspaceRoot = fileURLToPath(new URL("../../..", import.meta.url));
const ownRunNames = ["@deliberate/mcp-server", "@deliberate/client", "@deliberate/self-improvement", "@deliberate/viewer", "@deliberate/replicas", "@deliberate/packed"];

/** A workspace with the own-run packages' manifests and the root scripts given. */
function fixtureRoot(scripts: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "deliberate-suites-"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ name: "root", scripts }));
  ownRunPackages.forEach((pkg, index) => {
    mkdirSync(join(root, pkg), { recursive: true });
    writeFileSync(join(root, pkg, "package.json"), JSON.stringify({ name: ownRunNames[index] }));
    writeFileSync(join(root, pkg, "vitest.config.ts"), "export default {};\n");
  });
  mkdirSync(join(root, "packages", "engine"), { recursive: true });
  writeFileSync(join(root, "packages", "engine", "vitest.config.ts"), "export default {};\n");
  mkdirSync(join(root, "packages", "docs"), { recursive: true });
  return root;
}

const filters = (names: string[]) => names.map((name) => `--filter ${name}`).join(" ");
const created: string[] = [];
const fixture = (scripts: Record<string, string>) => {
  const root = fixtureRoot(scripts);
  created.push(root);
  return root;
};
afterEach(() => {
  for (const root of created.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("the test groups", () => {
  it("puts every tested package of the workspace in the sources run or in a run of its own, never both", () => {
    const tested = testedPackages(workspaceRoot);
    expect(tested).toEqual(expect.arrayContaining(["packages/engine", "services/http-api", "tooling/tasks", "tooling/vitest-config", ...ownRunPackages]));
    const sources = sourcesGroup(workspaceRoot);
    expect(sources.filter((pkg) => ownRunPackages.includes(pkg))).toEqual([]);
    expect([...sources, ...ownRunPackages].sort()).toEqual([...tested].sort());
  });

  it("finds only folders with a vitest.config.ts", () => {
    const root = fixture({});
    expect(testedPackages(root)).toEqual(["packages/engine", "packages/self-improvement", "packages/viewer", "services/client", "services/mcp-server", "tooling/packed", "tooling/replicas"]);
    expect(sourcesGroup(root)).toEqual(["packages/engine"]);
  });

  it("accepts the workspace's own root scripts", () => {
    expect(() => checkRootTestScripts(workspaceRoot)).not.toThrow();
  });

  it("refuses root scripts that would leave a package untested or run it twice, naming it", () => {
    const postgres = filters(ownRunNames.slice(0, 4));
    expect(() => checkRootTestScripts(fixture({ test: `tasks ${filters(ownRunNames.slice(1))} test`, "test:postgres": `tasks ${postgres} test` }))).toThrow(
      'the root "test" script must --filter exactly the packages with a vitest run of their own (tooling/vitest-config/suites.js); missing: @deliberate/mcp-server',
    );
    expect(() => checkRootTestScripts(fixture({ test: `tasks ${filters(ownRunNames)} --filter @deliberate/engine test`, "test:postgres": `tasks ${postgres} test` }))).toThrow(
      "; not expected: @deliberate/engine",
    );
    expect(() => checkRootTestScripts(fixture({ test: `tasks ${filters(ownRunNames)} test` }))).toThrow('the root "test:postgres" script must --filter exactly');
    expect(() => checkRootTestScripts(fixture({ test: `tasks ${filters(ownRunNames)} test`, "test:postgres": `tasks ${filters(ownRunNames)} test` }))).toThrow(
      "not expected: @deliberate/replicas",
    );
    expect(() => checkRootTestScripts(fixture({ test: `tasks ${filters(ownRunNames)} test`, "test:postgres": `tasks ${postgres} test` }))).not.toThrow();
  });

  it("keeps only the engine-dialect packages when a run asks for Postgres", () => {
    expect(forEngineDialect(["packages/store", "packages/engine", "services/http-api"], "postgres")).toEqual(["packages/engine", "services/http-api"]);
    expect(forEngineDialect(["packages/store", "packages/engine"], "sqlite")).toEqual(["packages/store", "packages/engine"]);
    expect(engineDialectPackages).toEqual(expect.arrayContaining(ownRunPackages.filter((pkg) => pkg !== "tooling/replicas" && pkg !== "tooling/packed")));
  });

  it("runs the packages' test files with the shared settings, in one root", () => {
    const config = groupConfig({ root: "/w", packages: ["packages/a", "tooling/b"], globalSetup: ["setup.ts"], maxWorkers: 3 });
    expect(config.root).toBe("/w");
    expect(config.test).toMatchObject({
      include: ["packages/a/src/**/*.test.ts", "packages/a/test/**/*.test.ts", "tooling/b/src/**/*.test.ts", "tooling/b/test/**/*.test.ts"],
      globalSetup: ["setup.ts"],
      maxWorkers: 3,
      isolate: false,
      pool: "forks",
      testTimeout: 30_000,
    });
    expect(groupConfig({ root: "/w", packages: [], globalSetup: [], maxWorkers: 1, testTimeout: 5, hookTimeout: 6 }).test).toMatchObject({ testTimeout: 5, hookTimeout: 6 });
  });
});

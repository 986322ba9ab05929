import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { planTasks } from "../src/plan.ts";
import { readWorkspace, rootTaskDependencies, workspaceGlobs } from "../src/workspace.ts";
import { fixtureWorkspace } from "./support/fixture-workspace.ts";

const fixture = fixtureWorkspace(
  {
    scripts: { "typecheck:all": "true", "test:group": "vitest run", test: "tasks test" },
    deliberate: { tasks: { "test:group": { dependsOn: ["@x/engine#build", "@x/service#build"] } } },
  },
  {
    base: { name: "@x/base", scripts: { test: "true" } },
    engine: {
      name: "@x/engine",
      scripts: { build: "true", test: "true" },
      dependencies: { "@x/base": "workspace:*", zod: "^4" },
      deliberate: { engineDialect: true },
    },
    service: {
      name: "@x/service",
      scripts: { build: "true", test: "true", lint: "true" },
      devDependencies: { "@x/engine": "workspace:^" },
      deliberate: { testRun: "own", engineDialect: true },
    },
    replicas: { name: "@x/replicas", scripts: { test: "true" }, deliberate: { testRun: "own" } },
    docs: { name: "@x/docs" },
  },
);
afterAll(() => fixture.remove());

describe("the workspace", () => {
  it("reads the package globs of pnpm-workspace.yaml as YAML: quoted or not, in flow style, after other keys", () => {
    expect(
      workspaceGlobs(
        "packages:\n  - packages/*\n  - \"services/*\" # the services\n  - 'tools'\nonlyBuiltDependencies:\n  - esbuild\n",
      ),
    ).toEqual(["packages/*", "services/*", "tools"]);
    expect(workspaceGlobs("onlyBuiltDependencies: [esbuild]\npackages: [packages/*, 'tooling/*']\n")).toEqual([
      "packages/*",
      "tooling/*",
    ]);
    expect(workspaceGlobs("# nothing but a comment\n")).toEqual([]);
  });

  it("refuses a workspace file it cannot read, naming the file and the fix", () => {
    expect(() => workspaceGlobs("packages: [a\n", "/w/pnpm-workspace.yaml")).toThrow(
      "/w/pnpm-workspace.yaml is not valid YAML",
    );
    expect(() => workspaceGlobs("packages: packages/*\n", "/w/pnpm-workspace.yaml")).toThrow(
      '/w/pnpm-workspace.yaml: "packages" must be a list of folder globs such as "packages/*"',
    );
    expect(() => workspaceGlobs("packages:\n  - 3\n")).toThrow('"packages" must be a list');
    const nested = fixtureWorkspace({ workspaceYaml: "packages:\n  - packages/**\n" }, {});
    try {
      expect(() => readWorkspace(nested.directory)).toThrow(
        'the glob "packages/**" is not supported (only "dir/*" and plain folders)',
      );
    } finally {
      nested.remove();
    }
  });

  it("lists every package with its scripts and its workspace dependencies (not its registry ones)", () => {
    const workspace = readWorkspace(fixture.directory);
    expect(workspace.root.scripts).toHaveProperty("typecheck:all");
    expect(workspace.packages.map((pkg) => [pkg.name, pkg.workspaceDependencies])).toEqual([
      ["@x/base", []],
      ["@x/docs", []],
      ["@x/engine", ["@x/base"]],
      ["@x/replicas", []],
      ["@x/service", ["@x/engine"]],
    ]);
  });

  it("reads each package's test settings from its package.json, and refuses ones it does not know, naming the file", () => {
    expect(readWorkspace(fixture.directory).packages.map((pkg) => [pkg.name, pkg.tests])).toEqual([
      ["@x/base", { testRun: "shared", engineDialect: false }],
      ["@x/docs", { testRun: "shared", engineDialect: false }],
      ["@x/engine", { testRun: "shared", engineDialect: true }],
      ["@x/replicas", { testRun: "own", engineDialect: false }],
      ["@x/service", { testRun: "own", engineDialect: true }],
    ]);
    const wrong = fixtureWorkspace({}, { a: { name: "@x/a", deliberate: { testRun: "alone" } } });
    try {
      expect(() => readWorkspace(wrong.directory)).toThrow(
        `${wrong.directory}/packages/a/package.json: "deliberate.testRun" must be "own", "separate" or "shared" (the default), got "alone"`,
      );
    } finally {
      wrong.remove();
    }
  });

  it("reads the builds the root's tasks wait for from the root package.json, and none without them", () => {
    expect(readWorkspace(fixture.directory).rootDependencies).toEqual({
      "test:group": ["@x/engine#build", "@x/service#build"],
    });
    expect(rootTaskDependencies({})).toEqual({});
    expect(() =>
      rootTaskDependencies(
        { deliberate: { tasks: { "test:group": { dependsOn: "@x/engine#build" } } } },
        "/w/package.json",
      ),
    ).toThrow('/w/package.json: "deliberate.tasks.test:group.dependsOn" must be a list of "<package>#build" names');
    expect(() => rootTaskDependencies({ deliberate: { tasks: ["test:group"] } })).toThrow(
      '"deliberate.tasks" must be an object of root scripts',
    );
    const unreadable = fixtureWorkspace({}, {});
    try {
      writeFileSync(join(unreadable.directory, "package.json"), "{ name");
      expect(() => readWorkspace(unreadable.directory)).toThrow(/cannot read .*package\.json/);
    } finally {
      unreadable.remove();
    }
  });

  it("refuses a folder without pnpm-workspace.yaml, naming it", () => {
    expect(() => readWorkspace("/")).toThrow("no pnpm-workspace.yaml in /");
  });
});

describe("planTasks", () => {
  const workspace = readWorkspace(fixture.directory);

  it("runs a script where it exists, after the package's own build and its dependencies' builds", () => {
    const tasks = planTasks(workspace, { tasks: ["test"] });
    const dependsOn = Object.fromEntries(tasks.map((task) => [task.id, task.dependsOn]));
    expect(dependsOn).toEqual({
      "@x/base#test": [],
      "@x/engine#build": [],
      "@x/engine#test": ["@x/engine#build"],
      "@x/replicas#test": [],
      "@x/service#build": [],
      "@x/service#test": ["@x/service#build", "@x/engine#build"],
    });
    expect(tasks.find((task) => task.id === "@x/service#test")?.directory).toBe(
      `${fixture.directory}/packages/service`,
    );
  });

  it("builds a filtered-out dependency all the same, and runs the root's script with //#", () => {
    const tasks = planTasks(workspace, { tasks: ["//#typecheck:all", "test"], filter: ["@x/service"] });
    expect(tasks.map((task) => task.id)).toEqual([
      "//#typecheck:all",
      "@x/service#build",
      "@x/engine#build",
      "@x/service#test",
    ]);
    expect(tasks[0]).toMatchObject({
      packageName: "fixture-root",
      command: "true",
      directory: fixture.directory,
      dependsOn: [],
    });
  });

  it("leaves the builds out when asked", () => {
    const tasks = planTasks(workspace, { tasks: ["test"], filter: ["@x/service"], withoutBuilds: true });
    expect(tasks.map((task) => [task.id, task.dependsOn])).toEqual([["@x/service#test", []]]);
  });

  it("adds the packages with a test run of their own, on Postgres only those on the engine's dialect", () => {
    const ids = (options: Parameters<typeof planTasks>[1]) => planTasks(workspace, options).map((task) => task.id);
    expect(ids({ tasks: ["test"], ownTestRuns: true, withoutBuilds: true })).toEqual([
      "@x/replicas#test",
      "@x/service#test",
    ]);
    expect(ids({ tasks: ["test"], ownTestRuns: true, withoutBuilds: true, engineDialect: "postgres" })).toEqual([
      "@x/service#test",
    ]);
    expect(ids({ tasks: ["test"], ownTestRuns: true, withoutBuilds: true, engineDialect: "sqlite" })).toEqual([
      "@x/replicas#test",
      "@x/service#test",
    ]);
    expect(ids({ tasks: ["test"], ownTestRuns: true, filter: ["@x/base"], withoutBuilds: true })).toEqual([
      "@x/base#test",
      "@x/replicas#test",
      "@x/service#test",
    ]);
    expect(ids({ tasks: ["//#test:group", "test"], ownTestRuns: true })).toEqual([
      "@x/engine#build",
      "@x/service#build",
      "//#test:group",
      "@x/replicas#test",
      "@x/service#test",
    ]);
    const none = { ...workspace, packages: workspace.packages.filter((pkg) => pkg.tests.testRun !== "own") };
    expect(() => planTasks(none, { tasks: ["test"], ownTestRuns: true })).toThrow(
      '--own-test-runs: no package has "deliberate": { "testRun": "own" } in its package.json',
    );
  });

  it("runs a root script after the builds the root package.json names for it, or at once without builds", () => {
    const tasks = planTasks(workspace, { tasks: ["//#test:group", "//#typecheck:all"] });
    expect(tasks.map((task) => [task.id, task.dependsOn])).toEqual([
      ["@x/engine#build", []],
      ["@x/service#build", []],
      ["//#test:group", ["@x/engine#build", "@x/service#build"]],
      ["//#typecheck:all", []],
    ]);
    expect(
      planTasks(workspace, { tasks: ["//#test:group"], withoutBuilds: true }).map((task) => [task.id, task.dependsOn]),
    ).toEqual([["//#test:group", []]]);
  });

  it("refuses a root script's dependency that is not a package's build, naming it", () => {
    const withDependencies = (dependsOn: string[]) => ({ ...workspace, rootDependencies: { "test:group": dependsOn } });
    expect(() => planTasks(withDependencies(["@x/engine#test"]), { tasks: ["//#test:group"] })).toThrow(
      'package.json "deliberate.tasks.test:group.dependsOn": //#test:group depends on "@x/engine#test"; a root script can depend only on builds',
    );
    expect(() => planTasks(withDependencies(["@x/nope#build"]), { tasks: ["//#test:group"] })).toThrow(
      '"@x/nope#build": no such package in the workspace',
    );
    expect(() => planTasks(withDependencies(["@x/base#build"]), { tasks: ["//#test:group"] })).toThrow(
      '"@x/base#build": @x/base has no "build" script',
    );
  });

  it("refuses what it cannot run, naming it", () => {
    expect(() => planTasks(workspace, { tasks: ["test"], filter: ["@x/nope"] })).toThrow(
      /--filter @x\/nope: no such package .*@x\/base/,
    );
    expect(() => planTasks(workspace, { tasks: ["deploy"] })).toThrow(
      'deploy: no selected package has a "deploy" script',
    );
    expect(() => planTasks(workspace, { tasks: ["lint"], filter: ["@x/base"] })).toThrow(
      'lint: no selected package has a "lint" script',
    );
    expect(() => planTasks(workspace, { tasks: ["//#bench"] })).toThrow(
      '//#bench: the workspace root has no "bench" script',
    );
    expect(() => planTasks(workspace, { tasks: [] })).toThrow("name at least one script");
  });
});

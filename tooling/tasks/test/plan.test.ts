import { afterAll, describe, expect, it } from "vitest";
import { planTasks } from "../src/plan.ts";
import { readRootDependencies, readWorkspace, workspaceGlobs } from "../src/workspace.ts";
import { fixtureWorkspace } from "./support/fixture-workspace.ts";

const fixture = fixtureWorkspace(
  {
    scripts: { "typecheck:all": "true", "test:group": "vitest run", test: "tasks test" },
    turbo: JSON.stringify({ tasks: { test: { dependsOn: ["^build"] }, "//#test:group": { dependsOn: ["@x/engine#build", "@x/service#build"] }, "//#typecheck:all": {} } }),
  },
  {
    base: { name: "@x/base", scripts: { test: "true" } },
    engine: { name: "@x/engine", scripts: { build: "true", test: "true" }, dependencies: { "@x/base": "workspace:*", zod: "^4" } },
    service: { name: "@x/service", scripts: { build: "true", test: "true", lint: "true" }, devDependencies: { "@x/engine": "workspace:^" } },
    docs: { name: "@x/docs" },
  },
);
afterAll(() => fixture.remove());

describe("the workspace", () => {
  it("reads the package globs of pnpm-workspace.yaml, quoted or not, and stops at the next key", () => {
    expect(workspaceGlobs('packages:\n  - packages/*\n  - "services/*" # the services\n  - \'tools\'\nonlyBuiltDependencies:\n  - esbuild\n')).toEqual(["packages/*", "services/*", "tools"]);
  });

  it("lists every package with its scripts and its workspace dependencies (not its registry ones)", () => {
    const workspace = readWorkspace(fixture.directory);
    expect(workspace.root.scripts).toHaveProperty("typecheck:all");
    expect(workspace.packages.map((pkg) => [pkg.name, pkg.workspaceDependencies])).toEqual([
      ["@x/base", []],
      ["@x/docs", []],
      ["@x/engine", ["@x/base"]],
      ["@x/service", ["@x/engine"]],
    ]);
  });

  it("reads the builds the root's tasks wait for from turbo.json, and none without it", () => {
    expect(readWorkspace(fixture.directory).rootDependencies).toEqual({ "test:group": ["@x/engine#build", "@x/service#build"] });
    const bare = fixtureWorkspace({}, {});
    const broken = fixtureWorkspace({ turbo: JSON.stringify({ tasks: { "//#test:group": { dependsOn: "@x/engine#build" } } }) }, {});
    const unreadable = fixtureWorkspace({ turbo: "{ tasks" }, {});
    try {
      expect(readRootDependencies(bare.directory)).toEqual({});
      expect(() => readRootDependencies(broken.directory)).toThrow('"//#test:group".dependsOn must be a list of task names');
      expect(() => readRootDependencies(unreadable.directory)).toThrow(/cannot read .*turbo\.json/);
    } finally {
      for (const workspace of [bare, broken, unreadable]) workspace.remove();
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
      "@x/service#build": [],
      "@x/service#test": ["@x/service#build", "@x/engine#build"],
    });
    expect(tasks.find((task) => task.id === "@x/service#test")?.directory).toBe(`${fixture.directory}/packages/service`);
  });

  it("builds a filtered-out dependency all the same, and runs the root's script with //#", () => {
    const tasks = planTasks(workspace, { tasks: ["//#typecheck:all", "test"], filter: ["@x/service"] });
    expect(tasks.map((task) => task.id)).toEqual(["//#typecheck:all", "@x/service#build", "@x/engine#build", "@x/service#test"]);
    expect(tasks[0]).toMatchObject({ packageName: "fixture-root", command: "true", directory: fixture.directory, dependsOn: [] });
  });

  it("leaves the builds out when asked", () => {
    const tasks = planTasks(workspace, { tasks: ["test"], filter: ["@x/service"], withoutBuilds: true });
    expect(tasks.map((task) => [task.id, task.dependsOn])).toEqual([["@x/service#test", []]]);
  });

  it("runs a root script after the builds turbo.json names for it, or at once without builds", () => {
    const tasks = planTasks(workspace, { tasks: ["//#test:group", "//#typecheck:all"] });
    expect(tasks.map((task) => [task.id, task.dependsOn])).toEqual([
      ["@x/engine#build", []],
      ["@x/service#build", []],
      ["//#test:group", ["@x/engine#build", "@x/service#build"]],
      ["//#typecheck:all", []],
    ]);
    expect(planTasks(workspace, { tasks: ["//#test:group"], withoutBuilds: true }).map((task) => [task.id, task.dependsOn])).toEqual([["//#test:group", []]]);
  });

  it("refuses a root script's dependency that is not a package's build, naming it", () => {
    const withDependencies = (dependsOn: string[]) => ({ ...workspace, rootDependencies: { "test:group": dependsOn } });
    expect(() => planTasks(withDependencies(["@x/engine#test"]), { tasks: ["//#test:group"] })).toThrow('//#test:group depends on "@x/engine#test"; a root script can depend only on builds');
    expect(() => planTasks(withDependencies(["@x/nope#build"]), { tasks: ["//#test:group"] })).toThrow('"@x/nope#build": no such package in the workspace');
    expect(() => planTasks(withDependencies(["@x/base#build"]), { tasks: ["//#test:group"] })).toThrow('"@x/base#build": @x/base has no "build" script');
  });

  it("refuses what it cannot run, naming it", () => {
    expect(() => planTasks(workspace, { tasks: ["test"], filter: ["@x/nope"] })).toThrow(/--filter @x\/nope: no such package .*@x\/base/);
    expect(() => planTasks(workspace, { tasks: ["deploy"] })).toThrow('deploy: no selected package has a "deploy" script');
    expect(() => planTasks(workspace, { tasks: ["lint"], filter: ["@x/base"] })).toThrow('lint: no selected package has a "lint" script');
    expect(() => planTasks(workspace, { tasks: ["//#bench"] })).toThrow('//#bench: the workspace root has no "bench" script');
    expect(() => planTasks(workspace, { tasks: [] })).toThrow("name at least one script");
  });
});

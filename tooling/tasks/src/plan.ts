import type { Workspace, WorkspacePackage } from "./workspace.ts";

/** One script of one package, and the tasks that must have passed before it starts. */
export interface Task {
  /** `<package>#<script>`, or `//#<script>` for the workspace root's. */
  id: string;
  packageName: string;
  script: string;
  command: string;
  directory: string;
  dependsOn: string[];
}

export interface PlanOptions {
  /** Script names; `//#name` is the root's script. */
  tasks: string[];
  /** Package names to run the scripts in (default: all). Their dependencies' builds run regardless. */
  filter?: string[];
  /** Leave the builds out: the scripts run at once (for a second pass over packages just built). */
  withoutBuilds?: boolean;
  /**
   * Also select every package with a test run of its own (`"deliberate": { "testRun": "own" }` in its package.json);
   * with `engineDialect: "postgres"`, only those also marked `"engineDialect": true`.
   */
  ownTestRuns?: boolean;
  /** The test engine's dialect of the run (`DELIBERATE_TEST_ENGINE_DIALECT`); narrows `ownTestRuns`. */
  engineDialect?: string;
}

const dependsOnField = (script: string) => `package.json "deliberate.tasks.${script.slice(3)}.dependsOn"`;

/** The package of a root script's dependency, named as `<package>#build` (the only kind supported). */
function rootDependency(byName: Map<string, WorkspacePackage>, script: string, dependency: string): WorkspacePackage {
  const match = /^(.+)#build$/.exec(dependency);
  const pkg = match ? byName.get(match[1] as string) : undefined;
  if (!match)
    throw new Error(
      `${dependsOnField(script)}: ${script} depends on "${dependency}"; a root script can depend only on builds, as "<package>#build"`,
    );
  if (!pkg)
    throw new Error(
      `${dependsOnField(script)}: ${script} depends on "${dependency}": no such package in the workspace`,
    );
  if (!("build" in pkg.scripts))
    throw new Error(
      `${dependsOnField(script)}: ${script} depends on "${dependency}": ${pkg.name} has no "build" script`,
    );
  return pkg;
}

/** The packages `--filter` names, plus those with a test run of their own under `ownTestRuns`; all when neither is given. */
function selectedPackages(
  workspace: Workspace,
  byName: Map<string, WorkspacePackage>,
  options: PlanOptions,
): WorkspacePackage[] {
  const named = (options.filter ?? []).map((name) => byName.get(name) as WorkspacePackage);
  if (!options.ownTestRuns) return named.length > 0 ? named : workspace.packages;
  const postgres = options.engineDialect === "postgres";
  const ownRuns = workspace.packages.filter(
    (pkg) => pkg.tests.testRun === "own" && (!postgres || pkg.tests.engineDialect),
  );
  if (ownRuns.length === 0) {
    throw new Error(
      `--own-test-runs: no package has "deliberate": { "testRun": "own"${postgres ? ', "engineDialect": true' : ""} } in its package.json`,
    );
  }
  return [...named, ...ownRuns.filter((pkg) => !named.includes(pkg))];
}

/** The task id of a package's script. */
export const taskId = (packageName: string, script: string) => `${packageName}#${script}`;

const rootPrefix = "//#";

/**
 * The tasks that run the named scripts, like turbo with `build` having no
 * dependencies and every other task depending on `build` and `^build`: a
 * package's script runs once its own build and the builds of the workspace
 * packages it depends on (directly) have passed. Builds bundle the workspace
 * sources they use, so they wait for nothing. Throws, naming the name, for a
 * filter naming no package or a script no selected package has.
 */
export function planTasks(workspace: Workspace, options: PlanOptions): Task[] {
  const byName = new Map(workspace.packages.map((pkg) => [pkg.name, pkg]));
  for (const name of options.filter ?? []) {
    if (!byName.has(name))
      throw new Error(
        `--filter ${name}: no such package in the workspace (packages: ${[...byName.keys()].join(", ")})`,
      );
  }
  if (options.tasks.length === 0)
    throw new Error("name at least one script to run (e.g. test, or //#typecheck for the root's)");
  const selected = selectedPackages(workspace, byName, options);
  const tasks = new Map<string, Task>();
  const add = (pkg: WorkspacePackage, script: string, dependsOn: string[]) => {
    const id = pkg === workspace.root ? `${rootPrefix}${script}` : taskId(pkg.name, script);
    if (!tasks.has(id))
      tasks.set(id, {
        id,
        packageName: pkg.name,
        script,
        command: pkg.scripts[script] as string,
        directory: pkg.directory,
        dependsOn,
      });
    return id;
  };
  const buildOf = (pkg: WorkspacePackage | undefined) =>
    pkg && "build" in pkg.scripts && !options.withoutBuilds ? [add(pkg, "build", [])] : [];
  for (const script of options.tasks) {
    if (script.startsWith(rootPrefix)) {
      const name = script.slice(rootPrefix.length);
      if (!(name in workspace.root.scripts)) throw new Error(`${script}: the workspace root has no "${name}" script`);
      add(
        workspace.root,
        name,
        (workspace.rootDependencies[name] ?? []).flatMap((dependency) =>
          buildOf(rootDependency(byName, script, dependency)),
        ),
      );
      continue;
    }
    const having = selected.filter((pkg) => script in pkg.scripts);
    if (having.length === 0) throw new Error(`${script}: no selected package has a "${script}" script`);
    for (const pkg of having) {
      if (script === "build") {
        buildOf(pkg);
        continue;
      }
      const builds = [...buildOf(pkg), ...pkg.workspaceDependencies.flatMap((name) => buildOf(byName.get(name)))];
      add(pkg, script, builds);
    }
  }
  return [...tasks.values()];
}

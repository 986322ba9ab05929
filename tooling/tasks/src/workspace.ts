import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type TestSettings, testSettings } from "@deliberate/vitest-config/test-settings";
import { parse as parseYaml } from "yaml";

/** One package of the workspace (or its root), as its manifest describes it. */
export interface WorkspacePackage {
  name: string;
  directory: string;
  scripts: Record<string, string>;
  /** The workspace packages it depends on (dependencies and devDependencies), by name. */
  workspaceDependencies: string[];
  /** Where its tests run (`"deliberate": { "testRun", "engineDialect" }` in its package.json). */
  tests: TestSettings;
}

export interface Workspace {
  root: WorkspacePackage;
  packages: WorkspacePackage[];
  /** The builds each root script waits for (`"deliberate": { "tasks": { "<script>": { "dependsOn": [...] } } }` in the root package.json), as `<package>#build`. */
  rootDependencies: Record<string, string[]>;
}

interface Manifest {
  name?: unknown;
  scripts?: unknown;
  dependencies?: unknown;
  devDependencies?: unknown;
  deliberate?: { tasks?: unknown };
}

const record = (value: unknown) =>
  value !== null && typeof value === "object" ? (value as Record<string, string>) : {};

function readManifestFile(directory: string): Manifest {
  const path = join(directory, "package.json");
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Manifest;
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
}

function toPackage(directory: string, manifest: Manifest): WorkspacePackage {
  const dependencies = { ...record(manifest.dependencies), ...record(manifest.devDependencies) };
  return {
    name: typeof manifest.name === "string" ? manifest.name : directory,
    directory,
    scripts: record(manifest.scripts),
    workspaceDependencies: Object.keys(dependencies).filter((name) =>
      String(dependencies[name]).startsWith("workspace:"),
    ),
    tests: testSettings(manifest, join(directory, "package.json")),
  };
}

/** The package globs of `pnpm-workspace.yaml` (its `packages:` list); throws naming the file and what is wrong with it. */
export function workspaceGlobs(yaml: string, where = "pnpm-workspace.yaml"): string[] {
  let document: unknown;
  try {
    document = parseYaml(yaml);
  } catch (error) {
    throw new Error(`${where} is not valid YAML: ${(error as Error).message}`);
  }
  const packages = (document as { packages?: unknown } | null)?.packages;
  if (packages === undefined) return [];
  if (!Array.isArray(packages) || packages.some((glob) => typeof glob !== "string"))
    throw new Error(`${where}: "packages" must be a list of folder globs such as "packages/*"`);
  return packages as string[];
}

/** The folders a `dir/*` or plain-folder glob names that hold a package.json. */
function foldersOf(rootDirectory: string, glob: string): string[] {
  if (glob.endsWith("/*") && !glob.slice(0, -2).includes("*")) {
    const parent = join(rootDirectory, glob.slice(0, -2));
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(parent, entry.name, "package.json")))
      .map((entry) => join(parent, entry.name));
  }
  if (!glob.includes("*"))
    return existsSync(join(rootDirectory, glob, "package.json")) ? [join(rootDirectory, glob)] : [];
  throw new Error(`pnpm-workspace.yaml: the glob "${glob}" is not supported (only "dir/*" and plain folders)`);
}

/** The root package and every package the workspace file lists, sorted by folder. */
export function readWorkspace(rootDirectory: string): Workspace {
  const file = join(rootDirectory, "pnpm-workspace.yaml");
  if (!existsSync(file)) throw new Error(`no pnpm-workspace.yaml in ${rootDirectory}`);
  const globs = workspaceGlobs(readFileSync(file, "utf8"), file);
  const directories = globs.flatMap((glob) => foldersOf(rootDirectory, glob)).sort();
  const rootManifest = readManifestFile(rootDirectory);
  return {
    root: toPackage(rootDirectory, rootManifest),
    packages: directories.map((directory) => toPackage(directory, readManifestFile(directory))),
    rootDependencies: rootTaskDependencies(rootManifest, join(rootDirectory, "package.json")),
  };
}

/**
 * The builds the root's scripts wait for, from the root package.json:
 * `"deliberate": { "tasks": { "test:sources": { "dependsOn": ["@deliberate/viewer#build"] } } }`, so a root script
 * that runs several packages' tests starts after the builds they need. Throws naming the field for any other shape.
 */
export function rootTaskDependencies(manifest: Manifest, where = "package.json"): Record<string, string[]> {
  const tasks = manifest.deliberate?.tasks;
  if (tasks === undefined) return {};
  if (tasks === null || typeof tasks !== "object" || Array.isArray(tasks))
    throw new Error(
      `${where}: "deliberate.tasks" must be an object of root scripts, such as { "test:sources": { "dependsOn": ["<package>#build"] } }`,
    );
  const dependencies: Record<string, string[]> = {};
  for (const [script, task] of Object.entries(tasks as Record<string, unknown>)) {
    const dependsOn = (task as { dependsOn?: unknown } | null)?.dependsOn;
    if (!Array.isArray(dependsOn) || dependsOn.some((entry) => typeof entry !== "string"))
      throw new Error(`${where}: "deliberate.tasks.${script}.dependsOn" must be a list of "<package>#build" names`);
    dependencies[script] = dependsOn as string[];
  }
  return dependencies;
}

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One package of the workspace (or its root), as its manifest describes it. */
export interface WorkspacePackage {
  name: string;
  directory: string;
  scripts: Record<string, string>;
  /** The workspace packages it depends on (dependencies and devDependencies), by name. */
  workspaceDependencies: string[];
}

export interface Workspace {
  root: WorkspacePackage;
  packages: WorkspacePackage[];
  /** The builds each root script waits for (`dependsOn` of `//#<script>` in turbo.json), as `<package>#build`. */
  rootDependencies: Record<string, string[]>;
}

function readManifest(directory: string): WorkspacePackage {
  const path = join(directory, "package.json");
  let manifest: { name?: unknown; scripts?: unknown; dependencies?: unknown; devDependencies?: unknown };
  try {
    manifest = JSON.parse(readFileSync(path, "utf8")) as typeof manifest;
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  const record = (value: unknown) => (value !== null && typeof value === "object" ? (value as Record<string, string>) : {});
  const dependencies = { ...record(manifest.dependencies), ...record(manifest.devDependencies) };
  return {
    name: typeof manifest.name === "string" ? manifest.name : directory,
    directory,
    scripts: record(manifest.scripts),
    workspaceDependencies: Object.keys(dependencies).filter((name) => String(dependencies[name]).startsWith("workspace:")),
  };
}

/**
 * The package globs of `pnpm-workspace.yaml` (its `packages:` list). Only the
 * forms this repository uses are read: `dir/*` and plain folders.
 */
export function workspaceGlobs(yaml: string): string[] {
  const globs: string[] = [];
  let inPackages = false;
  for (const line of yaml.split("\n")) {
    if (/^packages:\s*$/.test(line)) {
      inPackages = true;
      continue;
    }
    if (!inPackages) continue;
    const item = /^\s+-\s+["']?([^"'#]+?)["']?\s*(#.*)?$/.exec(line);
    if (item?.[1]) globs.push(item[1]);
    else if (/^\S/.test(line)) inPackages = false;
  }
  return globs;
}

/** The root package and every package the workspace file lists, sorted by folder. */
export function readWorkspace(rootDirectory: string): Workspace {
  const file = join(rootDirectory, "pnpm-workspace.yaml");
  if (!existsSync(file)) throw new Error(`no pnpm-workspace.yaml in ${rootDirectory}`);
  const directories: string[] = [];
  for (const glob of workspaceGlobs(readFileSync(file, "utf8"))) {
    if (glob.endsWith("/*")) {
      const parent = join(rootDirectory, glob.slice(0, -2));
      if (!existsSync(parent)) continue;
      for (const entry of readdirSync(parent, { withFileTypes: true })) {
        if (entry.isDirectory() && existsSync(join(parent, entry.name, "package.json"))) directories.push(join(parent, entry.name));
      }
    } else if (!glob.includes("*")) {
      if (existsSync(join(rootDirectory, glob, "package.json"))) directories.push(join(rootDirectory, glob));
    } else {
      throw new Error(`pnpm-workspace.yaml: the glob "${glob}" is not supported (only "dir/*" and plain folders)`);
    }
  }
  return { root: readManifest(rootDirectory), packages: directories.sort().map(readManifest), rootDependencies: readRootDependencies(rootDirectory) };
}

/**
 * The `dependsOn` of the root's tasks in turbo.json (`"//#<script>": { "dependsOn": [...] }`), so a root script
 * that runs several packages' tests waits for the builds they need, as under turbo. None without turbo.json.
 */
export function readRootDependencies(rootDirectory: string): Record<string, string[]> {
  const path = join(rootDirectory, "turbo.json");
  if (!existsSync(path)) return {};
  let turbo: { tasks?: Record<string, { dependsOn?: unknown }> };
  try {
    turbo = JSON.parse(readFileSync(path, "utf8")) as typeof turbo;
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as Error).message}`);
  }
  const dependencies: Record<string, string[]> = {};
  for (const [id, task] of Object.entries(turbo.tasks ?? {})) {
    if (!id.startsWith("//#") || task?.dependsOn === undefined) continue;
    if (!Array.isArray(task.dependsOn) || task.dependsOn.some((entry) => typeof entry !== "string")) throw new Error(`${path}: "${id}".dependsOn must be a list of task names`);
    dependencies[id.slice(3)] = task.dependsOn as string[];
  }
  return dependencies;
}

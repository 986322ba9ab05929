import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// The end-to-end tests run the BUILT services and the BUILT client (as a host installs it). Turbo's
// `test` builds them first (the services are dev dependencies for that reason); when run directly,
// this builds whatever is missing or older than its sources.

export const clientRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The package folder of a workspace package this one depends on. */
export function workspacePackage(name: string): string {
  return realpathSync(join(clientRoot, "node_modules", ...name.split("/")));
}

/** Newest modification time of the non-test TypeScript sources under `directory`. */
function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name)) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** A package's sources, manifest and build config, and the sources of the workspace packages it bundles. */
function newestInput(packageRoot: string, seen = new Set<string>()): number {
  if (seen.has(packageRoot)) return 0;
  seen.add(packageRoot);
  let newest = Math.max(newestSource(join(packageRoot, "src")), statSync(join(packageRoot, "package.json")).mtimeMs);
  const config = join(packageRoot, "tsup.config.ts");
  if (existsSync(config)) newest = Math.max(newest, statSync(config).mtimeMs);
  const workspace = join(packageRoot, "node_modules", "@deliberate");
  if (existsSync(workspace)) {
    for (const name of readdirSync(workspace)) {
      // The services are the client's dev dependencies (for turbo's ordering), not part of its bundle.
      if (packageRoot === clientRoot && name !== "contracts") continue;
      const dependency = realpathSync(join(workspace, name));
      if (existsSync(join(dependency, "src"))) newest = Math.max(newest, newestInput(dependency, seen));
    }
  }
  return newest;
}

function buildIfStale(packageRoot: string, output: string): void {
  const built = join(packageRoot, output);
  if (existsSync(built) && statSync(built).mtimeMs >= newestInput(packageRoot)) return;
  execFileSync(process.execPath, [join(packageRoot, "node_modules", "tsup", "dist", "cli-default.js")], { cwd: packageRoot, stdio: ["ignore", "ignore", "inherit"] });
}

export default function setup(): void {
  buildIfStale(workspacePackage("@deliberate/mcp-server"), join("dist", "main.js"));
  buildIfStale(workspacePackage("@deliberate/http-api"), join("dist", "main.js"));
  buildIfStale(clientRoot, join("dist", "index.d.ts"));
}

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";

// Plain JS like index.js: the global setups that import it are loaded by vitest through Node.

/** Newest modification time of the non-test TypeScript sources under `directory`. */
function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** A package's sources, manifest and build config, and (recursively) those of the workspace packages it bundles. */
function newestInput(packageRoot, bundles, seen) {
  if (seen.has(packageRoot)) return 0;
  seen.add(packageRoot);
  let newest = Math.max(newestSource(join(packageRoot, "src")), statSync(join(packageRoot, "package.json")).mtimeMs);
  const config = join(packageRoot, "tsup.config.ts");
  if (existsSync(config)) newest = Math.max(newest, statSync(config).mtimeMs);
  const workspace = join(packageRoot, "node_modules", "@deliberate");
  if (existsSync(workspace)) {
    for (const name of readdirSync(workspace)) {
      if (seen.size === 1 && !bundles(`@deliberate/${name}`)) continue;
      const dependency = realpathSync(join(workspace, name));
      if (existsSync(join(dependency, "src"))) newest = Math.max(newest, newestInput(dependency, bundles, seen));
    }
  }
  return newest;
}

/**
 * Builds a package (its `build` script) when `output` (relative to `packageRoot`) is
 * missing or older than its sources or those of the workspace packages it
 * bundles (`bundles` picks which of its direct workspace dependencies count;
 * default all). The root `pnpm test` builds first; this covers tests run directly.
 */
export function buildWhenStale({ packageRoot, output, bundles = () => true }) {
  const built = join(packageRoot, output);
  if (existsSync(built) && statSync(built).mtimeMs >= newestInput(packageRoot, bundles, new Set())) return;
  // The package's own build script (tsup, and for the client its declaration step).
  execFileSync("pnpm", ["run", "--silent", "build"], { cwd: packageRoot, stdio: ["ignore", "ignore", "inherit"] });
}

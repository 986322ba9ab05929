import { existsSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

// Plain JS: tsup loads its config through Node, which cannot import .ts from node_modules on Node 20.

/** Finds `node_modules/<name>/package.json` from `from` upwards (workspace packages are symlinked there). */
function manifestOf(packageName, from) {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, "node_modules", packageName, "package.json");
    if (existsSync(candidate)) return realpathSync(candidate);
    if (dirname(directory) === directory) throw new Error(`Cannot find ${packageName} from ${from}`);
  }
}

/**
 * The build of a service: the @deliberate/* workspace packages are consumed
 * from source, so they are bundled; their npm dependencies stay external and
 * must be resolvable from the service at run time. The build fails (rather
 * than the first run) when one of them is missing from the service's dependencies.
 *
 * `bundle` names npm packages to inline too: pure-JS libraries made of many
 * small files (kysely) load much faster from one bundle at start-up.
 *
 * @param {{ directory: string, entry: Record<string, string>, splitting: boolean, bundle?: string[] }} options
 * @returns {import("tsup").Options}
 */
export function defineServiceConfig(options) {
  const own = JSON.parse(readFileSync(join(options.directory, "package.json"), "utf8"));
  const declared = new Set(Object.keys(own.dependencies ?? {}));
  const missing = new Set();
  const seen = new Set();
  const visit = (packageName, from) => {
    if (seen.has(packageName)) return;
    seen.add(packageName);
    const manifestPath = manifestOf(packageName, from);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (dependency.startsWith("@deliberate/")) visit(dependency, dirname(manifestPath));
      else if (!declared.has(dependency)) missing.add(`${dependency} (needed by ${manifest.name})`);
    }
  };
  for (const dependency of declared) if (dependency.startsWith("@deliberate/")) visit(dependency, options.directory);
  if (missing.size > 0) {
    throw new Error(`Add to services/${basename(options.directory)} dependencies (bundled workspace packages need them at run time): ${[...missing].join(", ")}`);
  }
  return {
    entry: options.entry,
    format: ["esm"],
    platform: "node",
    target: "node20",
    outDir: "dist",
    clean: true,
    sourcemap: true,
    splitting: options.splitting,
    dts: false,
    // Bundle the workspace packages; keep every npm dependency external.
    noExternal: [/^@deliberate\//, ...(options.bundle ?? [])],
    external: [...declared].filter((name) => !name.startsWith("@deliberate/") && !(options.bundle ?? []).includes(name)),
  };
}

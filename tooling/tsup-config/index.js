import { execFileSync } from "node:child_process";
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
 * Builds the session viewer's browser files into `<outDir>/browser` (the viewer's own build script, given
 * that folder), where the bundled viewer code looks first (findViewerAssetsDirectory): the published
 * package carries them, with no @deliberate/viewer to resolve at run time. Built here rather than copied
 * from the viewer's dist, so a service's build needs no ordering against the viewer's (tooling/tasks and
 * turbo run builds side by side). Fails the build when it fails.
 */
function buildViewerAssets(directory, outDir) {
  const viewerRoot = dirname(manifestOf("@deliberate/viewer", directory));
  execFileSync(
    process.execPath,
    [join(viewerRoot, "scripts", "build-assets.mjs"), join(directory, outDir, "browser")],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
}

/**
 * The build of a service: the @deliberate/* workspace packages are consumed
 * from source, so they are bundled; they are dev dependencies of the service
 * (the published manifest names only what runs). Their npm dependencies stay
 * external and must be resolvable from the service at run time: the build fails
 * (rather than the first run) when one of them is missing from the service's dependencies,
 * and a publishable (non-private) service may not list a workspace package as a dependency.
 *
 * `bundle` names npm packages to inline too: pure-JS libraries made of many
 * small files (kysely) load much faster from one bundle at start-up.
 * `viewerAssets` builds the session viewer's browser files into `dist/browser`.
 *
 * @param {{ directory: string, entry: Record<string, string>, splitting: boolean, bundle?: string[], viewerAssets?: boolean }} options
 * @returns {import("tsup").Options}
 */
export function defineServiceConfig(options) {
  const own = JSON.parse(readFileSync(join(options.directory, "package.json"), "utf8"));
  const declared = new Set(Object.keys(own.dependencies ?? {}));
  const workspacePackages = [...Object.keys(own.dependencies ?? {}), ...Object.keys(own.devDependencies ?? {})].filter(
    (name) => name.startsWith("@deliberate/"),
  );
  const privateDependencies = [...declared].filter((name) => name.startsWith("@deliberate/"));
  if (own.private !== true && privateDependencies.length > 0) {
    throw new Error(
      `Move ${privateDependencies.join(", ")} to services/${basename(options.directory)} devDependencies: workspace packages are bundled, and a published manifest naming them cannot be installed.`,
    );
  }
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
  for (const dependency of workspacePackages) visit(dependency, options.directory);
  if (missing.size > 0) {
    throw new Error(
      `Add to services/${basename(options.directory)} dependencies (bundled workspace packages need them at run time): ${[...missing].join(", ")}`,
    );
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
    external: [...declared].filter(
      (name) => !name.startsWith("@deliberate/") && !(options.bundle ?? []).includes(name),
    ),
    ...(options.viewerAssets ? { onSuccess: async () => buildViewerAssets(options.directory, "dist") } : {}),
  };
}

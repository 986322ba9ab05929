import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { defineConfig } from "tsup";

// The @deliberate/* workspace packages are consumed from source, so they are
// bundled into dist/main.js; their npm dependencies stay external and must be
// resolvable from this package at run time. Fail the build (rather than the
// first run) when one of them is missing from this package's dependencies.
interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
}
const own = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as PackageJson;
const declared = new Set(Object.keys(own.dependencies ?? {}));
const missing = new Set<string>();
const seen = new Set<string>();
/** Finds `node_modules/<name>/package.json` from `from` upwards (workspace packages are symlinked there). */
function manifestOf(packageName: string, from: string): string {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, "node_modules", packageName, "package.json");
    if (existsSync(candidate)) return realpathSync(candidate);
    if (dirname(directory) === directory) throw new Error(`Cannot find ${packageName} from ${from}`);
  }
}
function visit(packageName: string, from: string): void {
  if (seen.has(packageName)) return;
  seen.add(packageName);
  const manifestPath = manifestOf(packageName, from);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as PackageJson;
  for (const dependency of Object.keys(manifest.dependencies ?? {})) {
    if (dependency.startsWith("@deliberate/")) visit(dependency, dirname(manifestPath));
    else if (!declared.has(dependency)) missing.add(`${dependency} (needed by ${manifest.name})`);
  }
}
for (const dependency of declared) if (dependency.startsWith("@deliberate/")) visit(dependency, import.meta.dirname);
if (missing.size > 0) {
  throw new Error(`Add to services/http-api dependencies (bundled workspace packages need them at run time): ${[...missing].join(", ")}`);
}

export default defineConfig({
  entry: { main: "src/main.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  outDir: "dist",
  clean: true,
  sourcemap: true,
  splitting: false,
  dts: false,
  // Bundle the workspace packages; keep every npm dependency external.
  noExternal: [/^@deliberate\//],
  external: [...declared].filter((name) => !name.startsWith("@deliberate/")),
});

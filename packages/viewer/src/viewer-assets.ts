import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The built browser files (`pnpm --filter @deliberate/viewer build` writes them to `dist/browser`). */
export interface ViewerAssets {
  script: string;
  style: string;
  /** index.html with `%BASE%` and `%VERSION%` placeholders. */
  html: string;
  /** Content hash of script and style, used for cache busting and ETags. */
  version: string;
}

const assetFile = "viewer.js";

/**
 * Where the built browser files are: next to this source file's package
 * (`../dist/browser`), or, when the service has bundled this code, through
 * `@deliberate/viewer` resolved from the bundle. Undefined when not built.
 */
export function findViewerAssetsDirectory(): string | undefined {
  const candidates: string[] = [];
  const here = dirname(fileURLToPath(import.meta.url));
  candidates.push(join(here, "..", "dist", "browser"), join(here, "browser"));
  try {
    const manifest = createRequire(import.meta.url).resolve("@deliberate/viewer/package.json");
    candidates.push(join(dirname(manifest), "dist", "browser"));
  } catch {
    // Not resolvable from here (e.g. running from the package's own source): the first candidate applies.
  }
  return candidates.find((candidate) => existsSync(join(candidate, assetFile)));
}

/** Reads the built files once; a clear error when the package was not built. */
export function loadViewerAssets(directory: string | undefined = findViewerAssetsDirectory()): ViewerAssets {
  if (directory === undefined || !existsSync(join(directory, assetFile))) {
    throw new Error(
      `The viewer's browser files are not built${directory === undefined ? "" : ` (looked in ${directory})`}: run \`pnpm --filter @deliberate/viewer build\`, or pass assetsDirectory.`,
    );
  }
  const script = readFileSync(join(directory, assetFile), "utf8");
  const style = readFileSync(join(directory, "viewer.css"), "utf8");
  const html = readFileSync(join(directory, "index.html"), "utf8");
  const version = createHash("sha256").update(script).update(style).update(html).digest("hex").slice(0, 16);
  return { script, style, html, version };
}

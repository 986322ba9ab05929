import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWhenStale } from "@deliberate/vitest-config/build-when-stale";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const builtServer = join(packageRoot, "dist", "main.js");

/** The viewer's package: the server serves its in-chat views (dist/browser/app.js) over both transports. */
const viewerRoot = dirname(createRequire(import.meta.url).resolve("@deliberate/viewer/package.json"));

/** Builds dist/main.js, and the viewer's browser files, when missing or stale (the root `pnpm test` builds first). */
export default function setup(): void {
  buildWhenStale({ packageRoot: viewerRoot, output: join("dist", "browser", "app.js") });
  buildWhenStale({ packageRoot, output: join("dist", "main.js") });
}

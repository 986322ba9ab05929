import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWhenStale } from "@deliberate/vitest-config/build-when-stale";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const builtServer = join(packageRoot, "dist", "main.js");

/** Builds dist/main.js when it is missing or stale (the root `pnpm test` builds first). */
export default function setup(): void {
  buildWhenStale({ packageRoot, output: join("dist", "main.js") });
}

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWhenStale } from "@deliberate/vitest-config/build-when-stale";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built `deliberate` command. */
export const builtCli = join(packageRoot, "dist", "cli.js");

/** Builds dist/cli.js when it is missing or older than its sources. */
export default function setup(): void {
  buildWhenStale({ packageRoot, output: join("dist", "cli.js") });
}

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Builds dist/browser from the current source (esbuild: well under a second). */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("../scripts/build-assets.mjs", import.meta.url))], { stdio: "inherit" });
}

import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const outputs = ["viewer.js", "app.js", "viewer.css", "index.html"].map((name) => join(root, "dist", "browser", name));

/** Newest modification time of the files under `path` (or of the file itself). */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, name) => Math.max(latest, newest(join(path, name))), stat.mtimeMs);
}

/**
 * Builds dist/browser from the current source (esbuild: well under a second) unless it is newer than every
 * input (the browser sources, the build script, the manifest): turbo's `test` has just built it.
 */
export default function setup(): void {
  const inputs = Math.max(
    newest(join(root, "src", "browser")),
    newest(join(root, "scripts", "build-assets.mjs")),
    newest(join(root, "package.json")),
  );
  if (outputs.every((output) => existsSync(output) && statSync(output).mtimeMs >= inputs)) return;
  execFileSync(process.execPath, [join(root, "scripts", "build-assets.mjs")], { stdio: "inherit" });
}

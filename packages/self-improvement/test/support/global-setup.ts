import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** The built `deliberate` command. */
export const builtCli = join(packageRoot, "dist", "cli.js");

function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function newestInput(): number {
  let newest = Math.max(newestSource(join(packageRoot, "src")), statSync(join(packageRoot, "package.json")).mtimeMs, statSync(join(packageRoot, "tsup.config.ts")).mtimeMs);
  const workspace = join(packageRoot, "node_modules", "@deliberate");
  for (const name of readdirSync(workspace)) {
    const source = join(realpathSync(join(workspace, name)), "src");
    if (existsSync(source)) newest = Math.max(newest, newestSource(source));
  }
  return newest;
}

/** Builds dist/cli.js with tsup when it is missing or older than its sources. */
export default function setup(): void {
  if (existsSync(builtCli) && statSync(builtCli).mtimeMs >= newestInput()) return;
  execFileSync(process.execPath, [join(packageRoot, "node_modules", "tsup", "dist", "cli-default.js")], { cwd: packageRoot, stdio: ["ignore", "ignore", "inherit"] });
}

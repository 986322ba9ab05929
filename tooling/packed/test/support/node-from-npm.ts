import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { npm, run } from "./npm.ts";

/**
 * A Node of the given major from the npm registry (the suite uses 22 and 24), installed once into
 * `cacheFolder` (one folder per major) and reused by later runs: the platform package that the
 * `node@<major>` package installs (node-<platform>-<arch>: the official build, with bin/node and
 * include/node, the headers better-sqlite3 compiles against). Needs nothing but the registry, so CI
 * gets it from nothing.
 */
export async function nodeFromNpm(major: number, cacheFolder: string): Promise<string> {
  const platformPackage = `node-${process.platform}-${process.arch}`;
  const home = join(cacheFolder, `${platformPackage}-${major}`);
  const binary = join(home, "bin", "node");
  if (existsSync(binary)) return binary;
  mkdirSync(cacheFolder, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), "deliberate-node-"));
  try {
    const packed = await npm(staging, ["pack", `${platformPackage}@${major}`, "--json"]);
    const [tarball] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
    if (!tarball) throw new Error(`npm pack ${platformPackage}@${major} said: ${packed.stdout}`);
    mkdirSync(join(staging, "node"));
    await run("tar", ["xzf", join(staging, tarball.filename), "-C", join(staging, "node"), "--strip-components=1"]);
    if (!readdirSync(join(staging, "node", "bin")).includes("node"))
      throw new Error(`${platformPackage}@${major} has no bin/node`);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(staging, "node"), home);
    return binary;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

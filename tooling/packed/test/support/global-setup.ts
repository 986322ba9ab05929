import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWhenStale } from "@deliberate/vitest-config/build-when-stale";
import type { TestProject } from "vitest/node";
import { nodeFromNpm } from "./node-22.ts";
import { npm, npmEnvironment, run } from "./npm.ts";
import { startPrebuildMirror } from "./prebuild-mirror.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** An empty folder outside the workspace where npm installed the two packed tarballs (and nothing else). */
    installFolder: string;
    /** The packed tarballs' file paths, by package name. */
    tarballs: Record<string, string>;
    /** A Node 22 binary from the npm registry (cached across runs). */
    node22: string;
    /** The loopback stand-in for better-sqlite3's prebuilt binaries (see prebuild-mirror.ts): its URL and folder. */
    prebuildMirror: { url: string; folder: string };
  }
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const repositoryRoot = join(packageRoot, "..", "..");
const workspacePackage = (name: string) => realpathSync(join(packageRoot, "node_modules", ...name.split("/")));
const published = ["@deliberate/mcp-server", "@deliberate/http-api"];

/** `pnpm pack`: what `pnpm publish` (and changesets) would publish, workspace ranges and publishConfig applied. */
async function pack(name: string, destination: string): Promise<string> {
  const packed = await run("pnpm", ["pack", "--json", "--pack-destination", destination], { cwd: workspacePackage(name), timeout: 120_000 });
  const tarball = JSON.parse(packed.stdout) as { filename?: string };
  if (!tarball.filename) throw new Error(`pnpm pack ${name} said: ${packed.stdout}`);
  return tarball.filename;
}

/** Packs both services and installs the tarballs with npm in an empty folder, once for the whole run. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The packed artefacts are the built ones: build whatever is missing or stale (the root `pnpm test` builds first).
  for (const name of published) buildWhenStale({ packageRoot: workspacePackage(name), output: join("dist", "main.js") });
  const cache = join(repositoryRoot, "node_modules", ".cache", "deliberate-packed");
  const node22 = nodeFromNpm(22, cache);
  const mirrorFolder = join(cache, "better-sqlite3-prebuilds");
  const mirror = await startPrebuildMirror(mirrorFolder, repositoryRoot);
  const root = mkdtempSync(join(tmpdir(), "deliberate-packed-"));
  const tarballs: Record<string, string> = {};
  mkdirSync(join(root, "tarballs"));
  for (const name of published) tarballs[name] = await pack(name, join(root, "tarballs"));
  const installFolder = join(root, "user");
  mkdirSync(installFolder);
  writeFileSync(join(installFolder, "package.json"), JSON.stringify({ name: "a-user-folder", private: true }));
  await npm(installFolder, ["install", "--no-package-lock", ...Object.values(tarballs)], npmEnvironment({ npm_config_better_sqlite3_binary_host: mirror.url }));
  project.provide("installFolder", installFolder);
  project.provide("tarballs", tarballs);
  project.provide("node22", await node22);
  project.provide("prebuildMirror", { url: mirror.url, folder: mirrorFolder });
  return async () => {
    await mirror.close();
    rmSync(root, { recursive: true, force: true });
  };
}

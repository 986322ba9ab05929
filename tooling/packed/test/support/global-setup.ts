import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWhenStale } from "@deliberate/vitest-config/build-when-stale";
import type { TestProject } from "vitest/node";
import { nodeFromNpm } from "./node-from-npm.ts";
import { npm, npmEnvironment, run } from "./npm.ts";
import { offerBuild, startPrebuildMirror } from "./prebuild-mirror.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** An empty folder outside the workspace where npm (on this Node) installed the two packed tarballs (and nothing else). */
    installFolder: string;
    /** Another such folder, installed by npm running on the Node 24 from npm (`node24`), as a user whose Node is 24. */
    installFolderNode24: string;
    /** The packed tarballs' file paths, by package name. */
    tarballs: Record<string, string>;
    /** A Node 22 binary from the npm registry (cached across runs). */
    node22: string;
    /** A Node 24 binary from the npm registry (cached across runs). */
    node24: string;
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
  const packed = await run("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: workspacePackage(name),
    timeout: 120_000,
  });
  const tarball = JSON.parse(packed.stdout) as { filename?: string };
  if (!tarball.filename) throw new Error(`pnpm pack ${name} said: ${packed.stdout}`);
  return tarball.filename;
}

/** An empty folder (a package.json of its own, so npm installs there) named `name` under `root`. */
function userFolder(root: string, name: string): string {
  const folder = join(root, name);
  mkdirSync(folder);
  writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "a-user-folder", private: true }));
  return folder;
}

/**
 * `npm install <tarballs>` in `folder` by npm running on `node` (first on PATH, as for a user whose Node it is).
 * better-sqlite3 asks the mirror for a binary for that Node and compiles from source when it has none, against
 * that Node's own headers (what node-gyp would download from nodejs.org, out of reach here); the compiled binary
 * then joins the mirror, so later runs download it.
 */
async function installWith(
  node: string,
  folder: string,
  tarballs: string[],
  mirror: { url: string; folder: string },
): Promise<void> {
  const nodeHome = dirname(dirname(node));
  const env = npmEnvironment({
    PATH: [dirname(node), process.env["PATH"] ?? ""].join(delimiter),
    npm_config_better_sqlite3_binary_host: mirror.url,
    npm_config_nodedir: nodeHome,
  });
  await npm(folder, ["install", "--no-package-lock", ...tarballs], env);
  const abi = (await run(node, ["-p", "process.versions.modules"])).stdout.trim();
  await offerBuild(mirror.folder, join(folder, "node_modules", "better-sqlite3"), abi);
}

/**
 * Packs both services and installs the tarballs with npm in two empty folders, once for the whole run: one on
 * this Node, one on a Node 24 from npm (side by side: the second compiles better-sqlite3 for Node 24 on a
 * first run, while the first mostly waits on the registry).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The packed artefacts are the built ones: build whatever is missing or stale (the root `pnpm test` builds first).
  for (const name of published)
    buildWhenStale({ packageRoot: workspacePackage(name), output: join("dist", "main.js") });
  const cache = join(repositoryRoot, "node_modules", ".cache", "deliberate-packed");
  // Both downloads start now (cached after the first run) and go on while the tarballs are packed.
  const node22 = nodeFromNpm(22, cache);
  const node24 = nodeFromNpm(24, cache);
  // Awaited below; a failure is thrown there, not reported early as unhandled.
  for (const download of [node22, node24]) download.catch(() => undefined);
  const mirrorFolder = join(cache, "better-sqlite3-prebuilds");
  const mirror = await startPrebuildMirror(mirrorFolder, repositoryRoot);
  const root = mkdtempSync(join(tmpdir(), "deliberate-packed-"));
  const tarballs: Record<string, string> = {};
  mkdirSync(join(root, "tarballs"));
  for (const name of published) tarballs[name] = await pack(name, join(root, "tarballs"));
  const installFolder = userFolder(root, "user");
  const installFolderNode24 = userFolder(root, "user-node-24");
  await Promise.all([
    npm(
      installFolder,
      ["install", "--no-package-lock", ...Object.values(tarballs)],
      npmEnvironment({ npm_config_better_sqlite3_binary_host: mirror.url }),
    ),
    node24.then((node) =>
      installWith(node, installFolderNode24, Object.values(tarballs), { url: mirror.url, folder: mirrorFolder }),
    ),
  ]);
  project.provide("installFolder", installFolder);
  project.provide("installFolderNode24", installFolderNode24);
  project.provide("tarballs", tarballs);
  project.provide("node22", await node22);
  project.provide("node24", await node24);
  project.provide("prebuildMirror", { url: mirror.url, folder: mirrorFolder });
  return async () => {
    await mirror.close();
    rmSync(root, { recursive: true, force: true });
  };
}

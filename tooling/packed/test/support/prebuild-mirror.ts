import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { run } from "./npm.ts";

/**
 * Adds the better-sqlite3 binary compiled in `packageFolder` to the mirror `folder`, under the name
 * prebuild-install asks for (its version, the ABI of the Node it was built for, platform and arch).
 */
export async function offerBuild(folder: string, packageFolder: string, abi: string): Promise<void> {
  const { version } = JSON.parse(readFileSync(join(packageFolder, "package.json"), "utf8")) as { version: string };
  const binary = join("build", "Release", "better_sqlite3.node");
  const name = `better-sqlite3-v${version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
  if (!existsSync(join(packageFolder, binary)) || existsSync(join(folder, name))) return;
  mkdirSync(folder, { recursive: true });
  await run("tar", ["czf", join(folder, `${name}.partial`), "-C", packageFolder, binary]);
  await run("mv", [join(folder, `${name}.partial`), join(folder, name)]);
}

/**
 * better-sqlite3 installs a prebuilt binary (prebuild-install, from its GitHub releases) and compiles from
 * source only when none downloads. GitHub is out of reach here, so this loopback server stands in for those
 * releases at `npm_config_better_sqlite3_binary_host` (prebuild-install's mirror setting), serving the
 * tarballs in `folder`: the workspace's own compile (the same version, this Node) and any binary an earlier
 * run compiled (offerBuild). Anything else answers 404 and is compiled from source, as on a user's machine
 * without a prebuilt binary: the first run in CI compiles for Node 22.
 */
export async function startPrebuildMirror(
  folder: string,
  repositoryRoot: string,
): Promise<{ url: string; close: () => Promise<void> }> {
  mkdirSync(folder, { recursive: true });
  const workspaceCopy = dirname(
    createRequire(join(repositoryRoot, "packages", "store", "package.json")).resolve("better-sqlite3/package.json"),
  );
  await offerBuild(folder, workspaceCopy, process.versions.modules);
  const server = createServer((request, response) => {
    const name = (request.url ?? "").split("/").pop() ?? "";
    if (!/^better-sqlite3-v[\w.-]+\.tar\.gz$/.test(name) || !readdirSync(folder).includes(name)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "content-type": "application/gzip" });
    createReadStream(join(folder, name)).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

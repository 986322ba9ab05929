// `pnpm:devPreinstall` (root package.json): runs before pnpm installs anything. better-sqlite3 is native: it
// downloads a prebuilt binary (GitHub) or compiles against Node's headers, which node-gyp downloads from
// nodejs.org unless npm_config_nodedir names a folder that has them. Offline from both, the install fails
// with node-gyp's download error, which reads as a network problem. This names the fix before that happens:
// one line on stderr when neither is reachable and no headers are configured or cached. It never fails the
// install (exit 0), and costs nothing when npm_config_nodedir is set or the headers are cached.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";

const version = process.versions.node;
// Not a turbo task: pnpm runs it before installing (no cache to invalidate).
const env = process.env;
const configured = env["npm_config_nodedir"];
const cacheHome = env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache");
const cachedHeaders = [
  join(cacheHome, "node-gyp", version, "include", "node", "node.h"),
  join(homedir(), ".node-gyp", version, "include", "node", "node.h"),
];
if ((configured !== undefined && configured !== "") || cachedHeaders.some((path) => existsSync(path))) process.exit(0);

// Overridable for the test of this script (tooling/packed).
const probes = (
  env["DELIBERATE_NATIVE_BUILD_PROBES"] ??
  `https://nodejs.org/download/release/v${version}/SHASUMS256.txt,https://github.com/`
).split(",");
const reachable = async (url) => {
  try {
    const response = await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(4000) });
    return response.status < 500;
  } catch {
    return false;
  }
};
const results = await Promise.all(probes.map(reachable));
if (results.some(Boolean)) process.exit(0);

// Where this Node's own headers are, when they sit next to it (Debian's nodejs-dev: /usr; official builds: their folder).
const nodeHome = dirname(dirname(process.execPath));
const local = existsSync(join(nodeHome, "include", "node", "node.h")) ? nodeHome : undefined;
process.stderr.write(
  `deliberate: nodejs.org and github.com are out of reach, so better-sqlite3 cannot download a prebuilt binary or Node's headers and its build will fail: ` +
    (local !== undefined
      ? `run the install as npm_config_nodedir=${local} pnpm install (this Node's headers are in ${join(local, "include", "node")}).\n`
      : `install Node's headers (e.g. Debian's nodejs-dev, or an official Node build, which has them in include/node) and run npm_config_nodedir=<that folder> pnpm install.\n`),
);

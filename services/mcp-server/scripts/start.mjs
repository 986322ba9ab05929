// `pnpm start` at the repository root: builds the MCP server only when its sources (or those of the workspace
// packages it bundles, the viewer's included) are newer than dist, with the build's output on stderr, then
// runs dist/main.js in this process. stdout carries the server's JSON-RPC only: pnpm's own "> deliberate@ start"
// banner (stdout) is silenced for `pnpm start` by the workspace's .pnpmfile.cjs.
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildWhenStale } from "../../../tooling/vitest-config/build-when-stale.js";

const serverRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
try {
  buildWhenStale({ packageRoot: serverRoot, output: join("dist", "main.js") });
} catch (error) {
  process.stderr.write(
    `deliberate-mcp: the build failed (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); its output is above.\n`,
  );
  process.exit(1);
}
const main = join(serverRoot, "dist", "main.js");
// The server names itself (connection help, --print-config) after the script it was started as.
process.argv[1] = main;
await import(pathToFileURL(main).href);

import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWhenStale } from "@deliberate/vitest-config/build-when-stale";

// The end-to-end tests run the BUILT services and the BUILT client (as a host installs it). The root
// `pnpm test` builds them first (the services are dev dependencies for that reason); when run directly,
// this builds whatever is missing or older than its sources.

export const clientRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The package folder of a workspace package this one depends on. */
export function workspacePackage(name: string): string {
  return realpathSync(join(clientRoot, "node_modules", ...name.split("/")));
}

export default function setup(): void {
  buildWhenStale({ packageRoot: workspacePackage("@deliberate/mcp-server"), output: join("dist", "main.js") });
  buildWhenStale({ packageRoot: workspacePackage("@deliberate/http-api"), output: join("dist", "main.js") });
  // The services are the client's dev dependencies (so the root `pnpm test` builds them first), not part of its bundle.
  buildWhenStale({
    packageRoot: clientRoot,
    output: join("dist", "index.d.ts"),
    bundles: (name) => name === "@deliberate/contracts",
  });
}

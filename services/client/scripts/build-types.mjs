// The published declarations, in two steps: TypeScript 7 (the native compiler) emits the declarations of
// the client and of the workspace sources it bundles (contracts, base), then rollup-plugin-dts bundles
// them per entry, inlining the workspace packages; zod and the MCP SDK stay imports. tsup's own `dts`
// did both with the TypeScript 5 compiler, which took most of the build.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";

const root = fileURLToPath(new URL("..", import.meta.url));
const emitted = join(root, "build", "types");
const tsc = join(createRequire(import.meta.url).resolve("typescript-native/package.json"), "..", "bin", "tsc");

rmSync(emitted, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.dts.json")], { stdio: "inherit" });

// Declarations keep the sources' `./x.ts` specifiers; the bundler resolves `./x.js` to `./x.d.ts`.
const relativeTs = /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g;
for (const entry of readdirSync(emitted, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const file = join(entry.parentPath, entry.name);
  writeFileSync(file, readFileSync(file, "utf8").replace(relativeTs, "$1$2.js$3"));
}

const types = (path) => join(emitted, path);
const bundle = await rollup({
  input: {
    index: types("services/client/src/index.d.ts"),
    mcp: types("services/client/src/mcp.d.ts"),
    node: types("services/client/src/node.d.ts"),
  },
  external: (id) =>
    id === "zod" || id.startsWith("zod/") || id.startsWith("@modelcontextprotocol/") || id.startsWith("node:"),
  plugins: [
    dts({
      respectExternal: true,
      compilerOptions: {
        baseUrl: emitted,
        paths: {
          "@deliberate/contracts": [types("packages/contracts/src/index.d.ts")],
          "@deliberate/base": [types("packages/base/src/index.d.ts")],
        },
      },
    }),
  ],
});
await bundle.write({
  dir: join(root, "dist"),
  format: "es",
  entryFileNames: "[name].d.ts",
  chunkFileNames: (chunk) => `${chunk.name.replace(/\.d$/, "")}-[hash].d.ts`,
});
await bundle.close();
rmSync(join(root, "build"), { recursive: true, force: true });

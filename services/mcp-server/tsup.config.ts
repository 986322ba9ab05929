import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineServiceConfig } from "@deliberate/tsup-config";
import { defineConfig, type Options } from "tsup";

/**
 * Code compiled from a V8 code cache in another process cannot run `import()`
 * (Node loses the script's dynamic-import handler), so the bundle's dynamic
 * imports (provider SDKs, DELIBERATE_MODULES) call `__deliberateImport`
 * instead: the launcher's `import()` when it set one, else the bundle's own
 * (`node dist/server.cjs` runs without a cache). Dynamic imports of the
 * service's own files and workspace packages are bundled, so they stay.
 */
const routeDynamicImports: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "route-dynamic-imports",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      // Imports of files and workspace packages stay: they are bundled (loaded lazily, no import() at run time).
      const external = /(?<![\w$.])import\s*\((?!\s*["'`](?:\.|@deliberate\/))/g;
      if (!external.test(source)) return undefined;
      return { contents: source.replace(external, "__deliberateImport("), loader: "ts" };
    });
  },
};

const service = defineServiceConfig({
  directory: import.meta.dirname,
  entry: { server: "src/main.ts" },
  splitting: false,
  // Inlined too: the libraries every start loads (one file instead of hundreds resolved one by one).
  // ext-apps: the two constants the in-chat views use (its server entry is an ES module: loading it
  // from the bundle would start Node's ES module loader, which nothing else before the first answer needs).
  bundle: [
    "kysely",
    "zod",
    "@modelcontextprotocol/server",
    "@modelcontextprotocol/core",
    "@modelcontextprotocol/ext-apps",
  ],
  viewerAssets: true,
});

// Two outputs: dist/server.cjs, the whole server as one script (CommonJS, so it can be
// compiled from a V8 code cache; the HTTP stack stays outside and loads only with --http),
// and dist/main.js, the `deliberate-mcp` command that runs it with that cache (src/launcher.ts), CommonJS
// like the bundle (dist/package.json), so a start loads no ES module at all.
export default defineConfig([
  {
    ...service,
    format: ["cjs"],
    outExtension: () => ({ js: ".cjs" }),
    // import.meta.url in the sources, as the bundle's own file URL.
    shims: true,
    minify: process.env["DELIBERATE_NO_MINIFY"] === undefined,
    esbuildPlugins: [routeDynamicImports],
    banner: {
      js: '"use strict";var __deliberateImport = (specifier) => (globalThis.__deliberateImport ?? ((target) => import(target)))(specifier);',
    },
    // The package.json build script empties dist first (the two outputs build side by side).
    clean: false,
  },
  {
    entry: { main: "src/launcher.ts" },
    format: ["cjs"],
    outExtension: () => ({ js: ".js" }),
    platform: "node",
    target: "node20",
    outDir: "dist",
    clean: false,
    sourcemap: false,
    dts: false,
    // The package is "type": "module"; this makes dist's .js files CommonJS (main.js, the command).
    onSuccess: async () => writeFileSync(join(import.meta.dirname, "dist", "package.json"), '{ "type": "commonjs" }\n'),
  },
]);

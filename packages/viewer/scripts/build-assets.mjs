// Builds the browser files the services serve: dist/browser/{viewer.js, viewer.css, index.html}, or into the
// folder given as the first argument (each service's build writes its own copy into its dist/browser, so
// it needs no ordering against this package's build). Everything (dagre included) is bundled: the page
// loads nothing from elsewhere.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const browser = join(root, "src", "browser");
const out = process.argv[2] !== undefined ? resolve(process.argv[2]) : join(root, "dist", "browser");
mkdirSync(out, { recursive: true });

/** `virtual:views` imports every views/*.view.ts in name order: adding a view is adding a file. */
const viewsPlugin = {
  name: "views",
  setup(context) {
    context.onResolve({ filter: /^virtual:views$/ }, () => ({ path: "views", namespace: "views" }));
    context.onLoad({ filter: /.*/, namespace: "views" }, () => {
      const files = readdirSync(join(browser, "views"))
        .filter((file) => file.endsWith(".view.ts"))
        .sort();
      return {
        contents: files.map((file) => `import ${JSON.stringify(`./views/${file}`)};`).join("\n"),
        resolveDir: browser,
        loader: "ts",
      };
    });
  },
};

await build({
  entryPoints: [join(browser, "main.ts")],
  outfile: join(out, "viewer.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["chrome110", "firefox110", "safari16"],
  minify: true,
  legalComments: "eof",
  plugins: [viewsPlugin],
  logLevel: "warning",
});
// The in-chat views (MCP Apps): the same views, with the ext-apps bridge to the host instead of the page's HTTP API.
await build({
  entryPoints: [join(browser, "app", "app-main.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  format: "iife",
  platform: "browser",
  target: ["chrome110", "firefox110", "safari16"],
  minify: true,
  legalComments: "eof",
  plugins: [viewsPlugin],
  logLevel: "warning",
});
await build({
  entryPoints: [join(browser, "styles.css")],
  outfile: join(out, "viewer.css"),
  bundle: true,
  minify: true,
  logLevel: "warning",
});
writeFileSync(join(out, "index.html"), readFileSync(join(browser, "index.html"), "utf8"));

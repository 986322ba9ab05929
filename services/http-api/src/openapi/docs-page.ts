import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Escapes text for HTML. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Where the /docs page's script and styles are served (relative to /docs). */
export const docsAssetsPath = "/docs/assets";

/** A file the docs page loads, served by the service itself: no CDN, works offline. */
export interface DocsAsset {
  contentType: string;
  body: string;
}

const initScript = `window.addEventListener("load", function () {
  if (typeof SwaggerUIBundle !== "function") return;
  document.getElementById("fallback").remove();
  SwaggerUIBundle({ url: "openapi.json", dom_id: "#reference", deepLinking: true });
});
`;

let swaggerVersion: string | undefined;

/**
 * The pinned Swagger UI (the exact `swagger-ui-dist` version in package.json)
 * read from node_modules on first use, plus the page's own start-up script.
 * Served under /docs/assets/ so the reference works without the internet.
 */
export function loadDocsAssets(): Map<string, DocsAsset> {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve("swagger-ui-dist/package.json");
  const directory = dirname(packageJson);
  swaggerVersion = (JSON.parse(readFileSync(packageJson, "utf8")) as { version: string }).version;
  return new Map<string, DocsAsset>([
    [
      "swagger-ui-bundle.js",
      {
        contentType: "text/javascript; charset=utf-8",
        body: readFileSync(join(directory, "swagger-ui-bundle.js"), "utf8"),
      },
    ],
    [
      "swagger-ui.css",
      { contentType: "text/css; charset=utf-8", body: readFileSync(join(directory, "swagger-ui.css"), "utf8") },
    ],
    ["init.js", { contentType: "text/javascript; charset=utf-8", body: initScript }],
  ]);
}

/**
 * The /docs page: a self-contained list of every operation (readable without
 * JavaScript), upgraded to the interactive Swagger UI reference, whose script
 * and styles the service serves itself from a pinned npm package (no CDN).
 */
export function renderDocsPage(document: Record<string, unknown>): string {
  const info = document["info"] as { title: string; version: string; description: string };
  const paths = document["paths"] as Record<
    string,
    Record<string, { summary?: string; description?: string; tags?: string[] }>
  >;
  const rows = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) =>
          `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(operation.summary ?? "")}</td></tr>`,
      ),
    )
    .join("\n");
  const assets = docsAssetsPath.slice(1);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} — API reference</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<style>
#fallback { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; }
#fallback table { border-collapse: collapse; width: 100%; }
#fallback td { border-top: 1px solid #d0d7de; padding: .35rem .6rem; vertical-align: top; }
#fallback code { font: 13px ui-monospace, monospace; }
</style>
</head>
<body>
<div id="fallback">
<h1>${escapeHtml(info.title)} <small>v${escapeHtml(info.version)}</small></h1>
<p>${escapeHtml(info.description)}</p>
<p>Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1). Sessions drawn as pictures: <a href="ui">the session viewer</a>.</p>
<table>
${rows}
</table>
</div>
<div id="reference"></div>
<script src="${assets}/swagger-ui-bundle.js"${swaggerVersion ? ` data-version="${escapeHtml(swaggerVersion)}"` : ""}></script>
<script src="${assets}/init.js"></script>
</body>
</html>
`;
}

/** Escapes text for HTML. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The /docs page: a self-contained list of every operation (readable offline
 * and without JavaScript), upgraded to an interactive Scalar reference when
 * the browser can load it from the CDN.
 */
export function renderDocsPage(document: Record<string, unknown>): string {
  const info = document["info"] as { title: string; version: string; description: string };
  const paths = document["paths"] as Record<string, Record<string, { summary?: string; description?: string; tags?: string[] }>>;
  const rows = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, operation]) =>
          `<tr><td><code>${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td><td>${escapeHtml(operation.summary ?? "")}</td></tr>`,
      ),
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)} — API reference</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; }
table { border-collapse: collapse; width: 100%; }
td { border-top: 1px solid #d0d7de; padding: .35rem .6rem; vertical-align: top; }
code { font: 13px ui-monospace, monospace; }
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
<script id="api-reference" data-url="openapi.json"></script>
<script src="https://cdn.jsdelivr.net/npm/@scalar/api-reference" onload="document.getElementById('fallback').remove()"></script>
</body>
</html>
`;
}

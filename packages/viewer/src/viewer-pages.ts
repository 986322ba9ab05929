import { loadViewerAssets, type ViewerAssets } from "./viewer-assets.ts";
import { contentSecurityPolicy, securityHeaders } from "./viewer-responses.ts";

/** What the page is told about its setting (written into its HTML as JSON). */
export interface PageSettings {
  base: string;
  tokenRequired: boolean;
  filterOptions: { tools?: readonly string[]; kinds?: readonly string[] };
  pageSize: number;
  /** Directory of the built browser files (default: found next to the package). */
  assetsDirectory: string | undefined;
}

/** The viewer's HTML page and its script and style; the built files are read on first use. */
export interface ViewerPages {
  page(request: Request): Response;
  script(request: Request): Response;
  style(request: Request): Response;
}

/** Serves the page (its settings written in) and the built assets (ETag = build version, 304 when unchanged). */
export function createViewerPages(settings: PageSettings): ViewerPages {
  const { base } = settings;
  let assets: ViewerAssets | undefined;
  const assetsOf = () => {
    assets ??= loadViewerAssets(settings.assetsDirectory);
    return assets;
  };

  function asset(request: Request, body: string, type: string): Response {
    const built = assetsOf();
    const etag = `"${built.version}"`;
    const headers = { "content-type": type, etag, "cache-control": "no-cache", ...securityHeaders };
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(request.method === "HEAD" ? null : body, { headers });
  }

  return {
    page(request) {
      const built = assetsOf();
      const config = JSON.stringify({
        base,
        tokenRequired: settings.tokenRequired,
        filterOptions: settings.filterOptions,
        pageSize: settings.pageSize,
      });
      const html = built.html
        .replaceAll("%BASE%", base)
        .replaceAll("%VERSION%", built.version)
        // Inert data block read by the script: JSON with '<' escaped can never close the element.
        .replace('"%CONFIG%"', () => config.replaceAll("<", "\\u003c"));
      const headers = {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "content-security-policy": contentSecurityPolicy,
        ...securityHeaders,
      };
      return new Response(request.method === "HEAD" ? null : html, { headers });
    },
    script: (request) => asset(request, assetsOf().script, "text/javascript; charset=utf-8"),
    style: (request) => asset(request, assetsOf().style, "text/css; charset=utf-8"),
  };
}

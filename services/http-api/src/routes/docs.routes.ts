import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { type DocsAsset, docsAssetsPath, loadDocsAssets, renderDocsPage } from "../openapi/docs-page.ts";
import { buildOpenApiDocument, type OpenApiInfo } from "../openapi/openapi-document.ts";
import type { OperationTable } from "../pipeline/operation-table.ts";

/**
 * GET /openapi.json and GET /docs. The document is built on first use from
 * every operation in the table (so register this sub-app last).
 */
export function docsRoutes(table: OperationTable, info: OpenApiInfo): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let document: Record<string, unknown> | undefined;
  let page: string | undefined;
  let assets: Map<string, DocsAsset> | undefined;
  const build = () => {
    document ??= buildOpenApiDocument(info, table.operations);
    return document;
  };
  table.add(
    app,
    {
      method: "get",
      path: "/openapi.json",
      operationId: "openapi",
      summary: "This OpenAPI 3.1 document",
      tags: ["service"],
      public: true,
      response: { description: "OpenAPI 3.1", contentType: "application/json" },
    },
    (c) => c.json(build()),
  );
  table.add(
    app,
    {
      method: "get",
      path: "/docs",
      operationId: "docs",
      summary: "API reference (HTML)",
      tags: ["service"],
      public: true,
      response: { description: "HTML page", contentType: "text/html" },
    },
    (c) => {
      assets ??= loadDocsAssets();
      page ??= renderDocsPage(build());
      return c.html(page);
    },
  );
  // The page's script and styles: the pinned swagger-ui-dist from node_modules (not in the OpenAPI document).
  app.get(`${docsAssetsPath}/:file`, (c) => {
    assets ??= loadDocsAssets();
    const asset = assets.get(c.req.param("file"));
    if (!asset) return c.notFound();
    c.header("Content-Type", asset.contentType);
    c.header("Cache-Control", "public, max-age=3600");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(asset.body);
  });
  return app;
}

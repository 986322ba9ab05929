import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createViewerRoutes, type ViewerRoutesOptions } from "../src/viewer-routes.ts";
import { axeScriptPath, axeSource } from "./axe-script.ts";

export interface ServedViewer {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves the viewer from a real HTTP server on loopback, mounted in a Hono app
 * exactly as the README tells a service to mount it.
 */
export async function serveViewer(options: ViewerRoutesOptions): Promise<ServedViewer> {
  const viewer = createViewerRoutes(options);
  const app = new Hono();
  app.get("/health", (c) => c.json({ ok: true }));
  // For the tests only: axe-core, loaded into a page by axeViolations (chromium.ts).
  app.get(axeScriptPath, (c) =>
    c.body(axeSource, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=3600",
    }),
  );
  app.all("/ui/*", async (c) => (await viewer(c.req.raw)) ?? c.notFound());
  app.all("/ui", async (c) => (await viewer(c.req.raw)) ?? c.notFound());
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

import { Hono } from "hono";
import { healthSchema } from "@deliberate/contracts";
import type { AppEnv } from "../app-env.ts";
import type { OperationCatalog } from "../openapi/operation.ts";

export { healthSchema };

/** GET /healthz and its alias /health: `{"status":"ok"}` while the process serves. */
export function healthRoutes(catalog: OperationCatalog): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const path of ["/healthz", "/health"]) {
    catalog.add(
      app,
      {
        method: "get",
        path,
        operationId: path === "/healthz" ? "healthz" : "health",
        summary: path === "/healthz" ? "Liveness" : "Liveness (alias of /healthz)",
        tags: ["service"],
        public: true,
        anyHost: true,
        response: { description: "The service is up", body: { name: "Health", schema: healthSchema } },
      },
      (c) => c.json({ status: "ok" as const }),
    );
  }
  return app;
}

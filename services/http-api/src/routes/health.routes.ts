import { Hono } from "hono";
import { databaseRetryAfterSeconds } from "@deliberate/base";
import { healthSchema, type Readiness, readinessSchema } from "@deliberate/contracts";
import type { AppEnv } from "../app-env.ts";
import type { OperationCatalog } from "../openapi/operation.ts";

export { healthSchema };

export interface HealthRouteOptions {
  /** Resolves when the database answers (`checkDatabase`), rejects when it does not. */
  checkDatabase(): Promise<void>;
}

/**
 * GET /healthz and its alias /health (liveness): `{"status":"ok"}` while the process serves, whatever its
 * database does. GET /readyz (readiness): 200 when the database answers, else 503 with Retry-After.
 */
export function healthRoutes(catalog: OperationCatalog, options: HealthRouteOptions): Hono<AppEnv> {
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
  catalog.add(
    app,
    {
      method: "get",
      path: "/readyz",
      operationId: "readyz",
      summary: "Readiness: 200 when the database answers, 503 (with Retry-After) while it does not",
      tags: ["service"],
      public: true,
      anyHost: true,
      response: { description: "The service can serve calls (503 with the same body while its database is unavailable)", body: { name: "Readiness", schema: readinessSchema } },
    },
    async (c) => {
      try {
        await options.checkDatabase();
        return c.json({ status: "ready", checks: { database: "ok" } } satisfies Readiness);
      } catch {
        c.header("Retry-After", String(databaseRetryAfterSeconds));
        return c.json({ status: "unavailable", checks: { database: "unavailable" } } satisfies Readiness, 503);
      }
    },
  );
  return app;
}

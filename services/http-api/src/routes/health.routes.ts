import { Hono } from "hono";
import { databaseRetryAfterSeconds } from "@deliberate/base";
import { healthSchema, type Readiness, readinessSchema } from "@deliberate/contracts";
import type { AppEnv } from "../app-env.ts";
import { JsonAnswer } from "../pipeline/json-operation.ts";
import type { OperationTable } from "../pipeline/operation-table.ts";

export { healthSchema };

export interface HealthRouteOptions {
  /** Resolves when the database answers (`checkDatabase`), rejects when it does not. */
  checkDatabase(): Promise<void>;
}

/**
 * GET /healthz and its alias /health (liveness): `{"status":"ok"}` while the process serves, whatever its
 * database does. GET /readyz (readiness): 200 when the database answers, else 503 with Retry-After.
 */
export function healthRoutes(table: OperationTable, options: HealthRouteOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const path of ["/healthz", "/health"]) {
    table.serve(app, {
      method: "get",
      path,
      operationId: path === "/healthz" ? "healthz" : "health",
      summary: path === "/healthz" ? "Liveness" : "Liveness (alias of /healthz)",
      tags: ["service"],
      public: true,
      anyHost: true,
      response: { description: "The service is up", body: { name: "Health", schema: healthSchema } },
      answer: () => ({ status: "ok" as const }),
    });
  }
  table.serve(app, {
    method: "get",
    path: "/readyz",
    operationId: "readyz",
    summary: "Readiness: 200 when the database answers, 503 (with Retry-After) while it does not",
    tags: ["service"],
    public: true,
    anyHost: true,
    response: {
      description: "The service can serve calls (503 with the same body while its database is unavailable)",
      body: { name: "Readiness", schema: readinessSchema },
    },
    answer: async () => {
      try {
        await options.checkDatabase();
        return { status: "ready", checks: { database: "ok" } } satisfies Readiness;
      } catch {
        const unavailable: Readiness = { status: "unavailable", checks: { database: "unavailable" } };
        return new JsonAnswer(unavailable, 503, { "Retry-After": String(databaseRetryAfterSeconds) });
      }
    },
  });
  return app;
}

import { DeliberateError, parseInput } from "@deliberate/contracts";
import {
  actionSchema,
  circuitBreakerSchema,
  configSchema,
  diagnosisSchema,
  diagnosticsQuerySchema,
  healthReportSchema,
  historyEntrySchema,
  historyQuerySchema,
  pauseRequestSchema,
  pauseResultSchema,
  reasonRequestSchema,
  type SelfImprovementControl,
  statusSchema,
} from "@deliberate/self-improvement";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { OperationCatalog } from "../openapi/operation.ts";
import { readBody, readBodyText } from "./read-json.ts";

const tags = ["self-improvement"];

/** An optional JSON body: empty is `{}`; malformed JSON is INVALID_INPUT. */
async function optionalBody<S extends z.ZodType>(c: Parameters<typeof readBody>[0], schema: S, what: string): Promise<z.output<S>> {
  const text = await readBodyText(c);
  let value: unknown = {};
  if (text.trim() !== "") {
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Malformed JSON body: ${(error as Error).message}`,
        issues: [{ field: "(body)", message: "not valid JSON" }],
        hint: 'Send {"reason": "..."} or no body.',
      });
    }
  }
  return parseInput(schema, value, what);
}

/**
 * The self-improvement loop over HTTP, under /v1/self-improvement (behind the
 * API's bearer auth like every non-public route): the reads of the CLI
 * (status, history, diagnostics, config, circuit breaker, baselines) and its
 * changes (approve, reject, rollback, pause). Mounted when the service
 * composes the self-improvement module.
 */
export function selfImprovementRoutes(catalog: OperationCatalog, options: { control: SelfImprovementControl }): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { control } = options;
  const read = (path: string, operationId: string, summary: string, body: { name: string; schema: z.ZodType }, handler: (c: Parameters<Parameters<OperationCatalog["add"]>[2]>[0]) => Promise<unknown>) =>
    catalog.add(app, { method: "get", path, operationId, summary, tags, response: { description: summary, body }, errors: [400, 401] }, async (c) => c.json((await handler(c)) as object));

  read("/v1/self-improvement", "getSelfImprovementStatus", "The loop at a glance: mode, leader, pause, breaker, last cycle, overrides in force", { name: "SelfImprovementStatus", schema: statusSchema }, () =>
    control.status(),
  );
  read(
    "/v1/self-improvement/history",
    "getSelfImprovementHistory",
    "Actions applied, newest first, with their measured reward (?limit, ?outcome)",
    { name: "SelfImprovementHistory", schema: z.array(historyEntrySchema) },
    (c) => {
      const query = parseInput(historyQuerySchema, c.req.query(), "query");
      return control.history({ ...(query.limit ? { limit: query.limit } : {}), ...(query.outcome ? { status: query.outcome } : {}) });
    },
  );
  read(
    "/v1/self-improvement/diagnostics",
    "getSelfImprovementDiagnostics",
    "Diagnoses, newest first (?limit, ?status)",
    { name: "SelfImprovementDiagnostics", schema: z.array(diagnosisSchema) },
    (c) => {
      const query = parseInput(diagnosticsQuerySchema, c.req.query(), "query");
      return control.diagnostics({ ...(query.limit ? { limit: query.limit } : {}), ...(query.status ? { status: query.status } : {}) });
    },
  );
  read("/v1/self-improvement/config", "getSelfImprovementConfig", "The loop's effective configuration and allowlist", { name: "SelfImprovementConfig", schema: configSchema }, async () => control.config());
  read("/v1/self-improvement/circuit-breaker", "getSelfImprovementCircuitBreaker", "The circuit breaker's state and thresholds", { name: "SelfImprovementCircuitBreaker", schema: circuitBreakerSchema }, () =>
    control.circuitBreaker(),
  );
  read(
    "/v1/self-improvement/baselines",
    "getSelfImprovementBaselines",
    "Per tool and mode: the current window against the baseline, and the triggers",
    { name: "SelfImprovementHealthReport", schema: healthReportSchema },
    () => control.baselines(),
  );

  const change = (
    input: { path: string; operationId: string; summary: string; request?: { name: string; schema: z.ZodType }; response: { name: string; schema: z.ZodType }; errors: number[] },
    handler: (c: Parameters<Parameters<OperationCatalog["add"]>[2]>[0]) => Promise<unknown>,
  ) =>
    catalog.add(
      app,
      {
        method: "post",
        path: input.path,
        operationId: input.operationId,
        summary: input.summary,
        tags,
        ...(input.request ? { request: input.request } : {}),
        response: { description: input.summary, body: input.response },
        errors: [400, 401, ...input.errors],
      },
      async (c) => c.json((await handler(c)) as object),
    );

  change(
    {
      path: "/v1/self-improvement/diagnoses/:diagnosis_id/approve",
      operationId: "approveSelfImprovementDiagnosis",
      summary: "Apply a pending diagnosis's action (advisory mode), through the allowlist, cooldown and hourly limit",
      response: { name: "SelfImprovementAction", schema: actionSchema },
      errors: [404, 409, 422],
    },
    (c) => control.approve(c.req.param("diagnosis_id") ?? ""),
  );
  change(
    {
      path: "/v1/self-improvement/diagnoses/:diagnosis_id/reject",
      operationId: "rejectSelfImprovementDiagnosis",
      summary: "Reject a pending diagnosis; the reason becomes a lesson for later analyses",
      request: { name: "SelfImprovementReason", schema: reasonRequestSchema },
      response: { name: "SelfImprovementDiagnosis", schema: diagnosisSchema },
      errors: [404, 409],
    },
    async (c) => control.reject(c.req.param("diagnosis_id") ?? "", (await optionalBody(c, reasonRequestSchema, "body")).reason),
  );
  change(
    {
      path: "/v1/self-improvement/actions/:action_id/rollback",
      operationId: "rollbackSelfImprovementAction",
      summary: "Undo an action: the value it replaced applies again on the next model call",
      request: { name: "SelfImprovementReason", schema: reasonRequestSchema },
      response: { name: "SelfImprovementAction", schema: actionSchema },
      errors: [404, 409],
    },
    async (c) => control.rollback(c.req.param("action_id") ?? "", (await optionalBody(c, reasonRequestSchema, "body")).reason),
  );
  change(
    {
      path: "/v1/self-improvement/pause",
      operationId: "pauseSelfImprovement",
      summary: "Pause the loop for a duration (0 resumes)",
      request: { name: "SelfImprovementPause", schema: pauseRequestSchema },
      response: { name: "SelfImprovementPaused", schema: pauseResultSchema },
      errors: [],
    },
    async (c) => control.pause((await readBody(c, pauseRequestSchema, "body")).duration),
  );
  return app;
}

import { type ModuleOperation, type OperationContext, operationDefinerFor } from "@deliberate/engine";
import { z } from "zod";
import {
  actionSchema,
  circuitBreakerSchema,
  configSchema,
  diagnosisSchema,
  diagnosticsQuerySchema,
  diagnosticsSchema,
  healthReportSchema,
  historyQuerySchema,
  historySchema,
  pauseRequestSchema,
  pauseResultSchema,
  reasonRequestSchema,
  statusSchema,
} from "./api-schemas.ts";
import type { SelfImprovementConfig } from "./config.ts";
import { createSelfImprovementControl, type SelfImprovementControl } from "./control.ts";
import type { OverrideSettingsSource } from "./settings-source.ts";
import type { SelfImprovementRepositories } from "./store/repositories/self-improvement.repository.ts";

const defineOperation = operationDefinerFor<SelfImprovementRepositories>();

const diagnosisId = z.string().describe("The diagnosis's id (sid_...), as `diagnostics` lists it");
const actionId = z.string().describe("The action's id (sia_...), as `history` lists it");

/**
 * The loop's reads (status, history, diagnostics, config, circuit breaker, baselines) and changes (approve,
 * reject, rollback, pause) as module operations: the HTTP API serves them under /v1/self-improvement, the MCP
 * server as `self-improvement/<name>` requests; the CLI runs the same control directly. A change made here
 * takes effect on this process's next model call (`source`), on other replicas within `syncMs`.
 */
export function selfImprovementOperations(options: {
  config: SelfImprovementConfig;
  source: OverrideSettingsSource;
}): ModuleOperation<SelfImprovementRepositories>[] {
  const control: ControlFor = (context) =>
    createSelfImprovementControl({
      store: context.store,
      config: options.config,
      source: options.source,
      clock: context.clock,
      ids: context.ids,
    });
  return [...readOperations(control), ...changeOperations(control)];
}

/** The control over the store of one operation's call. */
type ControlFor = (context: OperationContext<SelfImprovementRepositories>) => SelfImprovementControl;

/** The reads: status, history, diagnostics, config, circuit breaker, baselines (GET, no change). */
function readOperations(control: ControlFor): ModuleOperation<SelfImprovementRepositories>[] {
  return [
    defineOperation({
      name: "status",
      operationId: "getSelfImprovementStatus",
      method: "get",
      path: "",
      summary: "The loop at a glance: mode, leader, pause, breaker, last cycle, overrides in force",
      output: statusSchema,
      handler: (_input, context) => control(context).status(),
    }),
    defineOperation({
      name: "history",
      operationId: "getSelfImprovementHistory",
      method: "get",
      path: "/history",
      summary: "Actions applied, newest first, with their measured reward (?limit, ?outcome)",
      input: historyQuerySchema,
      output: historySchema,
      handler: (query, context) =>
        control(context).history({
          ...(query.limit ? { limit: query.limit } : {}),
          ...(query.outcome ? { status: query.outcome } : {}),
        }),
    }),
    defineOperation({
      name: "diagnostics",
      operationId: "getSelfImprovementDiagnostics",
      method: "get",
      path: "/diagnostics",
      summary: "Diagnoses, newest first (?limit, ?status)",
      input: diagnosticsQuerySchema,
      output: diagnosticsSchema,
      handler: (query, context) =>
        control(context).diagnostics({
          ...(query.limit ? { limit: query.limit } : {}),
          ...(query.status ? { status: query.status } : {}),
        }),
    }),
    defineOperation({
      name: "config",
      operationId: "getSelfImprovementConfig",
      method: "get",
      path: "/config",
      summary: "The loop's effective configuration and allowlist",
      output: configSchema,
      handler: async (_input, context) => control(context).config() as unknown as Record<string, unknown>,
    }),
    defineOperation({
      name: "circuitBreaker",
      operationId: "getSelfImprovementCircuitBreaker",
      method: "get",
      path: "/circuit-breaker",
      summary: "The circuit breaker's state and thresholds",
      output: circuitBreakerSchema,
      handler: (_input, context) => control(context).circuitBreaker(),
    }),
    defineOperation({
      name: "baselines",
      operationId: "getSelfImprovementBaselines",
      method: "get",
      path: "/baselines",
      summary: "Per tool and mode: the current window against the baseline, and the triggers",
      output: healthReportSchema,
      handler: (_input, context) => control(context).baselines(),
    }),
  ];
}

/** The changes: approve or reject a diagnosis, roll an action back, pause (POST; they take effect on the next model call). */
function changeOperations(control: ControlFor): ModuleOperation<SelfImprovementRepositories>[] {
  return [
    defineOperation({
      name: "approveDiagnosis",
      operationId: "approveSelfImprovementDiagnosis",
      method: "post",
      path: "/diagnoses/:diagnosis_id/approve",
      summary: "Apply a pending diagnosis's action (advisory mode), through the allowlist, cooldown and hourly limit",
      input: z.object({ diagnosis_id: diagnosisId }),
      output: actionSchema,
      errors: ["NOT_FOUND", "CONFLICT", "LIMIT_EXCEEDED"],
      handler: (input, context) => control(context).approve(input.diagnosis_id),
    }),
    defineOperation({
      name: "rejectDiagnosis",
      operationId: "rejectSelfImprovementDiagnosis",
      method: "post",
      path: "/diagnoses/:diagnosis_id/reject",
      summary: "Reject a pending diagnosis; the reason becomes a lesson for later analyses",
      input: reasonRequestSchema.extend({ diagnosis_id: diagnosisId }).meta({ title: "SelfImprovementReason" }),
      output: diagnosisSchema,
      errors: ["NOT_FOUND", "CONFLICT"],
      handler: (input, context) => control(context).reject(input.diagnosis_id, input.reason),
    }),
    defineOperation({
      name: "rollbackAction",
      operationId: "rollbackSelfImprovementAction",
      method: "post",
      path: "/actions/:action_id/rollback",
      summary: "Undo an action: the value it replaced applies again on the next model call",
      input: reasonRequestSchema.extend({ action_id: actionId }).meta({ title: "SelfImprovementReason" }),
      output: actionSchema,
      errors: ["NOT_FOUND", "CONFLICT"],
      handler: (input, context) => control(context).rollback(input.action_id, input.reason),
    }),
    defineOperation({
      name: "pause",
      operationId: "pauseSelfImprovement",
      method: "post",
      path: "/pause",
      summary: "Pause the loop for a duration (0 resumes)",
      input: pauseRequestSchema,
      output: pauseResultSchema,
      handler: (input, context) => control(context).pause(input.duration),
    }),
  ];
}

import { z } from "zod";
import { looseInteger } from "@deliberate/contracts";
import { actionStatuses, cycleOutcomes, diagnosisStatuses } from "./records.ts";
import { adjustableSettings, metricNames, severities } from "./types.ts";

/**
 * The shapes the HTTP API returns and `deliberate self-improve --json`
 * prints (the same objects), as zod schemas for OpenAPI and for tests.
 */
const iso = z.string().describe("ISO 8601 date-time");
const metric = z.enum(metricNames);

export const metricsSnapshotSchema = z
  .object({
    samples: z.number().int(),
    failures: z.number().int(),
    error_rate: z.number(),
    latency_p95_ms: z.number().nullable(),
    latency_samples: z.number().int(),
    quality: z.number().nullable(),
    quality_samples: z.number().int(),
    repair_rate: z
      .number()
      .describe("Share of calls whose answer was still invalid after the repair round (MODEL_OUTPUT_INVALID)"),
    cut_off: z.number().int(),
    error_codes: z.record(z.string(), z.number().int()),
    model_calls_mean: z.number(),
    from: iso.nullable(),
    to: iso.nullable(),
  })
  .meta({ title: "MetricsSnapshot" });

export const triggerSchema = z
  .object({
    tool: z.string(),
    metric,
    observed: z.number(),
    baseline: z.number(),
    threshold: z.number(),
    deviation_pct: z.number(),
    severity: z.enum(severities),
    window_samples: z.number().int(),
    baseline_samples: z.number().int(),
    window_from: iso,
    window_to: iso.nullable(),
  })
  .meta({ title: "SelfImprovementTrigger" });

const figures = z.object(
  Object.fromEntries(metricNames.map((name) => [name, z.number().nullable()])) as Record<
    (typeof metricNames)[number],
    z.ZodNullable<z.ZodNumber>
  >,
);

export const baselineSchema = z
  .object({
    kind: z.enum(["tool", "mode"]),
    name: z.string(),
    status: z.enum(["ready", "insufficient_samples"]),
    note: z.string().nullable(),
    window: metricsSnapshotSchema,
    window_from: iso,
    ema: figures.describe(
      "The baseline: EMA over chunks of earlier calls, frozen while a trigger is open (chunks that would trigger are left out)",
    ),
    // One property per metric (an object, not a record keyed by an enum: its JSON Schema names the properties it requires).
    frozen_since: z
      .object(
        Object.fromEntries(metricNames.map((name) => [name, iso.nullable()])) as Record<
          (typeof metricNames)[number],
          z.ZodNullable<typeof iso>
        >,
      )
      .describe("Per metric, when the regression its baseline is frozen against began (null: not frozen)"),
    rolling: metricsSnapshotSchema.describe("The earlier calls pooled"),
    chunks: z.number().int(),
  })
  .meta({ title: "SelfImprovementBaseline" });

export const healthReportSchema = z
  .object({
    generated_at: iso,
    healthy: z.boolean(),
    triggers: z.array(triggerSchema),
    tools: z.array(baselineSchema),
    modes: z.array(baselineSchema),
    overall: metricsSnapshotSchema,
  })
  .meta({ title: "SelfImprovementHealthReport" });

export const suggestedActionSchema = z.union([
  z.object({
    kind: z.literal("adjust"),
    scope: z.string().describe("A mode id, or engine"),
    setting: z.enum(adjustableSettings),
    direction: z.enum(["increase", "decrease"]),
    steps: z.number().int(),
    from: z.number(),
    to: z.number(),
    previous_override: z.number().nullable(),
    previous_action_id: z.string().nullable(),
  }),
  z.object({ kind: z.literal("none"), reason: z.string(), revisit_after: iso }),
]);

export const diagnosisSchema = z
  .object({
    id: z.string(),
    created_at: iso,
    updated_at: iso,
    tool: z.string(),
    metric,
    severity: z.enum(severities),
    deviation_pct: z.number(),
    trigger: triggerSchema,
    description: z.string(),
    suspected_cause: z.string().nullable(),
    action: suggestedActionSchema,
    rationale: z.string().nullable(),
    analyzer: z.enum(["model", "rules"]),
    rule: z.string().nullable(),
    status: z.enum(diagnosisStatuses),
    status_reason: z.string().nullable(),
    action_id: z.string().nullable(),
  })
  .meta({ title: "SelfImprovementDiagnosis" });

export const actionSchema = z
  .object({
    id: z.string(),
    diagnosis_id: z.string(),
    scope: z.string(),
    setting: z.enum(adjustableSettings),
    direction: z.enum(["increase", "decrease"]),
    from_value: z.number(),
    to_value: z.number(),
    previous_override: z.number().nullable(),
    previous_action_id: z.string().nullable(),
    tools: z.array(z.string()),
    metric,
    before_from: iso,
    applied_at: iso,
    applied_by: z.enum(["loop", "operator"]),
    status: z.enum(actionStatuses),
    status_reason: z.string().nullable(),
    evaluated_at: iso.nullable(),
    rolled_back_at: iso.nullable(),
    rolled_back_by: z.enum(["learner", "operator"]).nullable(),
    reward: z.number().nullable(),
    confidence: z.number().nullable(),
    pre_metrics: metricsSnapshotSchema,
    post_metrics: metricsSnapshotSchema.nullable(),
  })
  .meta({ title: "SelfImprovementAction" });

export const historyEntrySchema = actionSchema
  .extend({ target: z.string(), lesson: z.string().nullable() })
  .meta({ title: "SelfImprovementHistoryEntry" });
export const historySchema = z.array(historyEntrySchema).meta({ title: "SelfImprovementHistory" });
export const diagnosticsSchema = z.array(diagnosisSchema).meta({ title: "SelfImprovementDiagnostics" });

const breakerFields = {
  state: z.enum(["closed", "open", "half_open"]),
  consecutive_failures: z.number().int(),
  opened_at: iso.nullable(),
  half_open_successes: z.number().int(),
  last_failure: z.string().nullable(),
  last_failure_at: iso.nullable(),
  remaining_ms: z.number(),
};

export const circuitBreakerSchema = z
  .object({
    ...breakerFields,
    reopens_at: iso.nullable(),
    failure_threshold: z.number().int(),
    reset_timeout_ms: z.number().int(),
    success_threshold: z.number().int(),
  })
  .meta({ title: "SelfImprovementCircuitBreaker" });

export const statusSchema = z
  .object({
    settings_from: z
      .union([
        z.object({ source: z.literal("service"), holder: z.string(), recorded_at: iso }),
        z.object({ source: z.literal("environment"), holder: z.null(), recorded_at: z.null() }),
      ])
      .describe(
        "Where mode, analyzer and cycle_ms come from: the running service's record in the database, or the reader's own environment when no service has recorded one",
      ),
    mode: z.enum(["auto", "advisory", "off"]),
    analyzer: z.enum(["auto", "model", "rules"]),
    cycle_ms: z.number().int(),
    paused_until: iso.nullable(),
    leader: z.object({ holder: z.string(), acquired_at: iso, expires_at: iso, live: z.boolean() }).nullable(),
    circuit_breaker: circuitBreakerSchema,
    last_cycle: z
      .object({
        id: z.string(),
        started_at: iso,
        finished_at: iso,
        holder: z.string(),
        outcome: z.enum(cycleOutcomes),
        reason: z.string(),
        diagnosis_id: z.string().nullable(),
        action_id: z.string().nullable(),
        details: z.record(z.string(), z.unknown()),
      })
      .nullable(),
    overrides: z.array(
      z.object({
        scope: z.string(),
        setting: z.enum(adjustableSettings),
        value: z.number(),
        action_id: z.string().nullable(),
        updated_at: iso,
        target: z.string(),
      }),
    ),
    pending_diagnoses: z.number().int(),
    actions_evaluating: z.number().int(),
    actions_last_hour: z.number().int(),
    max_actions_per_hour: z.number().int(),
    execution_block: z.string().nullable(),
  })
  .meta({ title: "SelfImprovementStatus" });

export const configSchema = z.record(z.string(), z.unknown()).meta({ title: "SelfImprovementConfig" });

const durationHint = "a duration such as 90s, 30m, 2h, 1d, 1h30m, or whole milliseconds; 0 resumes";
export const pauseRequestSchema = z
  .object({
    duration: z
      .union([z.string().min(1, `must not be empty: give ${durationHint}`), z.number().int().min(0)], {
        error: `must be ${durationHint}`,
      })
      .describe("90s, 30m, 2h, 1d, or milliseconds; 0 resumes"),
  })
  .meta({ title: "SelfImprovementPause" });
export const pauseResultSchema = z.object({ paused_until: iso.nullable() }).meta({ title: "SelfImprovementPaused" });
export const reasonRequestSchema = z
  .object({ reason: z.string().max(2000).optional() })
  .meta({ title: "SelfImprovementReason" });

// ?limit reads like a session read's (looseInteger): "", " " or "abc" are "expected a number", not a coerced 0 or NaN.
export const historyQuerySchema = z.object({
  limit: looseInteger({ min: 1, max: 1000 }).optional(),
  outcome: z.enum(actionStatuses).optional(),
});
export const diagnosticsQuerySchema = z.object({
  limit: looseInteger({ min: 1, max: 1000 }).optional(),
  status: z.enum(diagnosisStatuses).optional(),
});

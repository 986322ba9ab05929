import { z } from "zod";
import { looseBoolean, looseInteger } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

export const metricsQuerySchema = lazySchema(() =>
  z.enum(["summary", "by_mode", "invocations", "fallbacks", "config"]),
);

const isoDateTime = lazySchema(() => z.iso.datetime({ offset: true }));
const isoDate = lazySchema(() => z.iso.date());

/** An ISO 8601 date or date-time, normalised to UTC `toISOString()` form (how rows store `created_at`). */
const sinceSchema = lazySchema(() =>
  z
    .string()
    .trim()
    .refine((value) => isoDateTime.safeParse(value).success || isoDate.safeParse(value).success, {
      message: "since must be an ISO 8601 date or date-time, e.g. 2026-11-22 or 2026-11-22T05:00:00Z",
    })
    .transform((value) => new Date(value).toISOString()),
);

export const metricsInputSchema = lazySchema(() =>
  z
    .object({
      query: metricsQuerySchema.describe(
        "summary=all stats, by_mode=mode stats, invocations=call history, fallbacks=provider and error breakdown, config=debug info",
      ),
      mode_name: z
        .string()
        .trim()
        .min(1)
        .optional()
        .describe("For by_mode: a tool (reasoning_tree) or mode (tree); omit for every tool"),
      tool_name: z.string().trim().min(1).optional().describe("Filter for invocations and fallbacks"),
      session_id: z.string().min(1).optional().describe("Filter for every query but config"),
      success_only: looseBoolean().optional().describe("For invocations: only successful calls"),
      success: looseBoolean().optional().describe("For invocations: true = only successes, false = only failures"),
      since: sinceSchema.optional().describe("Only calls at or after this ISO 8601 date/date-time"),
      limit: looseInteger({ min: 1, max: 1000 })
        .default(100)
        .describe("For invocations: newest first, at most this many"),
    })
    .superRefine((value, context) => {
      if (value.success_only === true && value.success === false) {
        context.addIssue({
          code: "custom",
          path: ["success"],
          message: "success=false contradicts success_only=true: drop one of them",
        });
      }
    }),
);

const rate = lazySchema(() =>
  z.number().min(0).max(1).nullable().describe("Share of calls that succeeded; null when there were no calls"),
);
const latency = (what: string) =>
  z.number().nullable().describe(`${what} latency in ms; null when there were no calls`);

export const latencyStatsSchema = lazySchema(() =>
  z.object({
    call_count: z.number().int(),
    success_count: z.number().int(),
    failure_count: z.number().int(),
    success_rate: rate,
    avg_latency_ms: latency("Mean"),
    latency_p50_ms: latency("Median"),
    latency_p95_ms: latency("95th percentile"),
    latency_p99_ms: latency("99th percentile"),
  }),
);

export const modeStatsSchema = lazySchema(() =>
  latencyStatsSchema.extend({
    mode_name: z.string().describe("The tool"),
    model_calls: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    error_codes: z.record(z.string(), z.number().int()).describe("Failures by error code"),
    by_operation: z
      .array(latencyStatsSchema.extend({ operation: z.string().nullable() }))
      .describe("The same figures per operation"),
  }),
);

export const metricsInvocationSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    tool_name: z.string(),
    operation: z.string().nullable(),
    session_id: z.string().nullable(),
    success: z.boolean(),
    error_code: z.string().nullable(),
    error_message: z.string().nullable(),
    latency_ms: z.number().int(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    model_calls: z.number().int(),
    rounds: z.number().int().describe("Host-executed rounds the call took to finish (1 when it ran in one go)"),
    input_tokens: z.number().int().describe("Every prompt token, cache reads and writes included"),
    output_tokens: z.number().int(),
    cache_read_tokens: z
      .number()
      .int()
      .describe("Prompt tokens read from the provider's prompt cache (part of input_tokens)"),
    cache_write_tokens: z
      .number()
      .int()
      .describe("Prompt tokens written to the provider's prompt cache (part of input_tokens)"),
    quality: z.number().nullable(),
    created_at: z.string().describe("ISO 8601 date-time"),
  }),
);

export const metricsFallbacksSchema = lazySchema(() =>
  z.object({
    total_calls: z.number().int(),
    by_provider: z
      .array(
        z.object({
          provider: z
            .string()
            .describe(
              "Provider that answered, or 'none' when no model answered (no model needed, or the call failed before an answer)",
            ),
          call_count: z.number().int(),
          failure_count: z.number().int(),
          model_calls: z.number().int(),
          input_tokens: z.number().int(),
          output_tokens: z.number().int(),
        }),
      )
      .describe("Calls by the provider that served them, most used first"),
    by_error_code: z
      .array(
        z.object({
          error_code: z.string(),
          count: z.number().int(),
          share: z.number().min(0).max(1).describe("count / total_calls"),
          tools: z.array(z.string()),
        }),
      )
      .describe("Failures by error code, most frequent first"),
    recommendations: z.array(z.string()).describe("What to change, derived from the figures above"),
  }),
);

export const metricsSummarySchema = lazySchema(() =>
  z.object({
    total_calls: z.number().int(),
    success_count: z.number().int(),
    failure_count: z.number().int(),
    success_rate: rate,
    avg_latency_ms: latency("Mean"),
    model_calls: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    by_mode: z.record(z.string(), z.number().int()).describe("Calls per tool"),
  }),
);

export const metricsOutputSchema = lazySchema(() =>
  z.object({
    summary: metricsSummarySchema.optional().describe("For summary query"),
    mode_stats: modeStatsSchema.optional().describe("For by_mode with mode_name"),
    modes: z.array(modeStatsSchema).optional().describe("For by_mode without mode_name: every tool with calls"),
    invocations: z.array(metricsInvocationSchema).optional().describe("For invocations query, newest first"),
    fallbacks: metricsFallbacksSchema.optional().describe("For fallbacks query"),
    config: z
      .record(z.string(), z.unknown())
      .optional()
      .describe("For config query: effective configuration, secrets redacted"),
  }),
);

export const metricsTool = defineTool({
  name: "reasoning_metrics",
  description:
    "Observability, usage statistics, and debugging, computed from the recorded invocation rows. Queries: SUMMARY returns call counts, success rate, mean latency, tokens and calls per tool; BY_MODE returns per-tool (mode_name, or all) counts, success rate and p50/p95/p99 latency (nearest-rank), also per operation; INVOCATIONS returns call history newest first, filterable by tool_name, session_id, success/success_only and since, with limit; FALLBACKS breaks calls down by provider and failures by error code with recommendations; CONFIG returns the effective configuration with secrets redacted. Calls to reasoning_metrics are recorded but left out of every figure (list them with tool_name=reasoning_metrics), so asking does not change the answer.",
  inputSchema: metricsInputSchema,
  outputSchema: metricsOutputSchema,
  annotations: {
    title: "Metrics & Observability",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: metricsQuerySchema.options,
  usesModel: false,
});

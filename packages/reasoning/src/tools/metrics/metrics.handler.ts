import { DeliberateError, metricsTool, type ToolOutput } from "@deliberate/contracts";
import type { InvocationAggregate, InvocationAggregateFilter } from "@deliberate/store";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";

type MetricsOutput = ToolOutput<typeof metricsTool>;

/**
 * reasoning_metrics' own calls are recorded like any other (so they can be
 * listed with tool_name=reasoning_metrics) but left out of every figure unless
 * asked for by name, so asking for metrics does not change the metrics.
 */
const selfTool = metricsTool.name;

/** Latency percentiles reported, by the nearest-rank method (always an observed latency). */
const reportedPercentiles = [50, 95, 99] as const;

interface Totals {
  calls: number;
  successes: number;
  latencyTotal: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
}

function total(rows: readonly InvocationAggregate[]): Totals {
  const totals: Totals = { calls: 0, successes: 0, latencyTotal: 0, modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  for (const row of rows) {
    totals.calls += row.calls;
    if (row.success) totals.successes += row.calls;
    totals.latencyTotal += row.latency_ms_total;
    totals.modelCalls += row.model_calls;
    totals.inputTokens += row.input_tokens;
    totals.outputTokens += row.output_tokens;
  }
  return totals;
}

/** The 1-based nearest ranks of the reported percentiles among `count` calls (what `percentiles` with nearest_rank reads). */
function nearestRanks(count: number): number[] {
  return reportedPercentiles.map((p) => Math.max(1, Math.ceil((p * count) / 100)));
}

function latencyStats(rows: readonly InvocationAggregate[], atRanks: readonly (number | null)[]) {
  const totals = total(rows);
  const [p50, p95, p99] = totals.calls > 0 ? atRanks : [null, null, null];
  return {
    call_count: totals.calls,
    success_count: totals.successes,
    failure_count: totals.calls - totals.successes,
    success_rate: totals.calls > 0 ? totals.successes / totals.calls : null,
    avg_latency_ms: totals.calls > 0 ? totals.latencyTotal / totals.calls : null,
    latency_p50_ms: p50 ?? null,
    latency_p95_ms: p95 ?? null,
    latency_p99_ms: p99 ?? null,
  };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

function countBy<T>(
  items: readonly T[],
  key: (item: T) => string | null,
  weight: (item: T) => number,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const name = key(item);
    if (name !== null) counts[name] = (counts[name] ?? 0) + weight(item);
  }
  return counts;
}

/**
 * The tool a `mode_name` names: a served tool by its own name (any module's),
 * or a reasoning mode's short name (`tree` for reasoning_tree). Anything else
 * is NOT_FOUND naming the field, rather than a silent row of zeros.
 */
function toolNameOf(modeName: string, context: ReasoningContext, field: string): string {
  if (context.tools.has(modeName)) return modeName;
  const prefixed = `reasoning_${modeName}`;
  if (context.tools.has(prefixed)) return prefixed;
  throw new DeliberateError({
    code: "NOT_FOUND",
    message: `No tool or mode named '${modeName}'.`,
    issues: [{ field, message: `'${modeName}' names no tool or mode served here` }],
    hint: `Use a tool name such as ${[...context.tools.keys()].slice(0, 4).join(", ")}, or a mode such as tree.`,
  });
}

/** Leaves metrics' own calls out unless the query names that tool. */
function scope(filter: { tool?: string; sessionId?: string; since?: string }): InvocationAggregateFilter {
  return { ...filter, ...(filter.tool === selfTool ? {} : { excludeTools: [selfTool] }) };
}

async function summary(filter: InvocationAggregateFilter, context: ReasoningContext): Promise<MetricsOutput> {
  const rows = await context.store.invocations.aggregate(scope(filter));
  const totals = total(rows);
  return {
    summary: {
      total_calls: totals.calls,
      success_count: totals.successes,
      failure_count: totals.calls - totals.successes,
      success_rate: totals.calls > 0 ? totals.successes / totals.calls : null,
      avg_latency_ms: totals.calls > 0 ? totals.latencyTotal / totals.calls : null,
      model_calls: totals.modelCalls,
      input_tokens: totals.inputTokens,
      output_tokens: totals.outputTokens,
      by_mode: countBy(
        rows,
        (row) => row.tool,
        (row) => row.calls,
      ),
    },
  };
}

async function byMode(
  modeName: { value: string; field: string } | undefined,
  filter: { sessionId?: string; since?: string },
  context: ReasoningContext,
): Promise<MetricsOutput> {
  const tool = modeName === undefined ? undefined : toolNameOf(modeName.value, context, modeName.field);
  const filters = scope({ ...filter, ...(tool !== undefined ? { tool } : {}) });
  const rows = await context.store.invocations.aggregate(filters);
  const rowsByTool = groupBy(rows, (row) => row.tool);
  const rankFilter = {
    ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
    ...(filter.since !== undefined ? { since: filter.since } : {}),
  };

  // Percentiles by rank from the calls' latency index: no row is read beyond the ranks asked for.
  const statsFor = async (name: string) => {
    const toolRows = rowsByTool.get(name) ?? [];
    const totals = total(toolRows);
    const operations = [...groupBy(toolRows, (row) => row.operation).entries()].sort(([a], [b]) =>
      (a ?? "").localeCompare(b ?? ""),
    );
    const [toolRanks, ...operationRanks] = await Promise.all([
      context.store.invocations.latencyAtRanks({ ...rankFilter, tool: name }, nearestRanks(totals.calls)),
      ...operations.map(([operation, operationRows]) =>
        context.store.invocations.latencyAtRanks(
          { ...rankFilter, tool: name, operation },
          nearestRanks(total(operationRows).calls),
        ),
      ),
    ]);
    return {
      mode_name: name,
      ...latencyStats(toolRows, toolRanks ?? []),
      model_calls: totals.modelCalls,
      input_tokens: totals.inputTokens,
      output_tokens: totals.outputTokens,
      error_codes: countBy(
        toolRows,
        (row) => (row.success ? null : (row.error_code ?? "UNKNOWN")),
        (row) => row.calls,
      ),
      by_operation: operations.map(([operation, operationRows], index) => ({
        operation,
        ...latencyStats(operationRows, operationRanks[index] ?? []),
      })),
    };
  };

  if (tool !== undefined) return { mode_stats: await statsFor(tool) };
  const modes = (await Promise.all([...rowsByTool.keys()].map(statsFor))).sort(
    (a, b) => b.call_count - a.call_count || a.mode_name.localeCompare(b.mode_name),
  );
  return { modes };
}

async function invocations(
  filter: { tool?: string; sessionId?: string; since?: string; success?: boolean; limit: number },
  context: ReasoningContext,
): Promise<MetricsOutput> {
  const rows = await context.store.invocations.list({
    ...scope(filter),
    ...(filter.success !== undefined ? { success: filter.success } : {}),
    limit: filter.limit,
  });
  return {
    invocations: rows.map((row) => ({
      id: row.id,
      tool_name: row.tool,
      operation: row.operation,
      session_id: row.session_id,
      success: row.success,
      error_code: row.error_code,
      error_message: row.error_message,
      latency_ms: Math.round(row.latency_ms),
      provider: row.provider,
      model: row.model,
      model_calls: row.model_calls,
      rounds: row.rounds,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_read_tokens: row.cache_read_tokens,
      cache_write_tokens: row.cache_write_tokens,
      quality: row.quality,
      created_at: row.created_at,
    })),
  };
}

function percent(count: number, of: number): string {
  return `${Math.round((count / of) * 1000) / 10}%`;
}

/** What to do about each kind of failure; `{tools}` is replaced by the tools affected. */
const adviceByCode: Record<string, string> = {
  PROVIDER_RATE_LIMITED: "were rate limited: lower the engine's concurrency or raise the provider's rate limit",
  PROVIDER_TIMEOUT: "timed out: raise the timeout of the modes concerned or use a faster model for {tools}",
  PROVIDER_UNAVAILABLE:
    "found the provider unavailable even after retries: check the provider's status or point at another endpoint",
  PROVIDER_AUTH: "were refused by the provider: check the API key",
  PROVIDER_NOT_CONFIGURED:
    "had no model configured: configure a provider, or let the calling agent answer (host-executed)",
  PROVIDER_BAD_REQUEST:
    "were rejected by the provider as bad requests: check the model ids and per-mode settings (max tokens, thinking budget)",
  MODEL_OUTPUT_INVALID:
    "got model answers that failed validation even after a repair round: use a model with structured-output support for {tools}",
  LIMIT_EXCEEDED: "hit a configured limit in {tools}: raise the limit or split the work",
  STORAGE: "failed in storage: check the database (disk space, locks); see error_message via query 'invocations'",
  INTERNAL:
    "failed with an internal error in {tools}: a defect; see error_message via query 'invocations' and report it",
};

async function fallbacks(
  filter: { tool?: string; sessionId?: string; since?: string },
  context: ReasoningContext,
): Promise<MetricsOutput> {
  const rows = await context.store.invocations.aggregate(scope(filter));
  const totals = total(rows);

  const byProvider = [...groupBy(rows, (row) => row.provider ?? "none").entries()]
    .map(([provider, providerRows]) => {
      const providerTotals = total(providerRows);
      return {
        provider,
        call_count: providerTotals.calls,
        failure_count: providerTotals.calls - providerTotals.successes,
        model_calls: providerTotals.modelCalls,
        input_tokens: providerTotals.inputTokens,
        output_tokens: providerTotals.outputTokens,
      };
    })
    .sort((a, b) => b.call_count - a.call_count || a.provider.localeCompare(b.provider));

  const failed = rows.filter((row) => !row.success);
  const byErrorCode = [...groupBy(failed, (row) => row.error_code ?? "UNKNOWN").entries()]
    .map(([code, codeRows]) => {
      const count = codeRows.reduce((sum, row) => sum + row.calls, 0);
      return {
        error_code: code,
        count,
        share: totals.calls > 0 ? count / totals.calls : 0,
        tools: [...new Set(codeRows.map((row) => row.tool))].sort(),
      };
    })
    .sort((a, b) => b.count - a.count || a.error_code.localeCompare(b.error_code));

  const recommendations: string[] = [];
  for (const entry of byErrorCode) {
    const advice = adviceByCode[entry.error_code];
    if (advice === undefined) continue;
    recommendations.push(
      `${entry.count} of ${totals.calls} calls (${percent(entry.count, totals.calls)}) ${advice.replace("{tools}", entry.tools.join(", "))}.`,
    );
  }
  const hostExecuted = byProvider.find((entry) => entry.provider === "host");
  if (hostExecuted !== undefined) {
    recommendations.push(
      `${hostExecuted.call_count} of ${totals.calls} calls (${percent(hostExecuted.call_count, totals.calls)}) were host-executed (answered by the calling agent): configure a server-side provider to answer them in one round trip.`,
    );
  }
  if (totals.calls === 0) recommendations.push("No calls recorded for this filter yet.");
  else if (failed.length === 0) recommendations.push("No failures recorded for this filter: nothing to change.");

  return {
    fallbacks: { total_calls: totals.calls, by_provider: byProvider, by_error_code: byErrorCode, recommendations },
  };
}

/** Key names (lowercased, without _ and -) whose values are secrets. */
const secretKeySuffixes = [
  "apikey",
  "secret",
  "password",
  "passphrase",
  "token",
  "authorization",
  "credential",
  "credentials",
  "privatekey",
];
const redactionMarks = new Set(["(set)", "(not set)", "(redacted)"]);

function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replaceAll(/[-_]/g, "");
  return secretKeySuffixes.some((suffix) => normalized.endsWith(suffix));
}

/** A URL with its user and password removed; other strings unchanged. */
function withoutCredentials(value: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return value;
  try {
    const url = new URL(value);
    if (url.username === "" && url.password === "") return value;
    url.username = "";
    url.password = "";
    return url.toString();
  } catch {
    return value;
  }
}

/**
 * The snapshot should arrive redacted (providers' `redactSettings`); this is a
 * second line of defence: secret-named keys and URL credentials never leave.
 */
export function redactConfig(value: unknown): unknown {
  if (typeof value === "string") return withoutCredentials(value);
  if (Array.isArray(value)) return value.map(redactConfig);
  if (typeof value !== "object" || value === null) return value;
  const redacted: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (isSecretKey(key) && item !== undefined && item !== null) {
      redacted[key] = typeof item === "string" && redactionMarks.has(item) ? item : "(redacted)";
    } else {
      redacted[key] = redactConfig(item);
    }
  }
  return redacted;
}

function config(context: ReasoningContext): MetricsOutput {
  const snapshot = redactConfig(context.configSnapshot ?? {}) as Record<string, unknown>;
  return {
    config: {
      ...snapshot,
      engine: {
        concurrency: context.concurrency,
        mode_settings: Object.fromEntries(context.modes.map((mode) => [mode, context.settings(mode)])),
      },
    },
  };
}

/**
 * reasoning_metrics: read-only figures from the invocation rows (one per tool
 * call). It writes nothing; the engine records its calls, which every figure
 * leaves out unless the query names reasoning_metrics.
 */
export const metricsHandler = defineHandler(metricsTool, async (input, context) => {
  const common = {
    ...(input.session_id !== undefined ? { sessionId: input.session_id } : {}),
    ...(input.since !== undefined ? { since: input.since } : {}),
  };
  const tool = input.tool_name !== undefined ? { tool: input.tool_name } : {};
  switch (input.query) {
    case "summary":
      return summary(common, context);
    case "by_mode":
      return byMode(
        input.mode_name !== undefined
          ? { value: input.mode_name, field: "mode_name" }
          : input.tool_name !== undefined
            ? { value: input.tool_name, field: "tool_name" }
            : undefined,
        common,
        context,
      );
    case "invocations": {
      const success = input.success_only === true ? true : input.success;
      return invocations(
        { ...common, ...tool, ...(success !== undefined ? { success } : {}), limit: input.limit },
        context,
      );
    }
    case "fallbacks":
      return fallbacks({ ...common, ...tool }, context);
    case "config":
      return config(context);
  }
});

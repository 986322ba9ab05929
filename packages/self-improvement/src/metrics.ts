import { percentiles } from "@deliberate/algorithms";
import type { InvocationSample, MetricName } from "./types.ts";

/** The figures of a set of invocation rows (a window, a baseline chunk, the calls before or after an action). */
export interface MetricsSnapshot {
  samples: number;
  failures: number;
  /** failures / samples (0 with no samples). */
  error_rate: number;
  /** p95 (nearest rank) of the successful calls' latency; null with too few successes. */
  latency_p95_ms: number | null;
  latency_samples: number;
  /** Mean quality of the calls that report one; null with too few. */
  quality: number | null;
  quality_samples: number;
  /**
   * Share of calls whose model answer was still invalid after the provider's
   * repair round (MODEL_OUTPUT_INVALID): the repair/fallback rate. A repair
   * that succeeded leaves no trace in the invocation rows, so only failed
   * repairs count.
   */
  repair_rate: number;
  /** Of those, answers cut off at the token limit (the provider says so in the message). */
  cut_off: number;
  /** Failures by error code. */
  error_codes: Record<string, number>;
  /** Mean model calls per invocation. */
  model_calls_mean: number;
  /** When the earliest and the latest of the rows' calls started. */
  from: string | null;
  to: string | null;
}

/** The provider's phrase for an answer cut off at max tokens (packages/providers generate-with-repair). */
const cutOffPhrase = "cut off at the token limit";

/**
 * Figures of `rows`. Latency and quality need `minMetricSamples` successful
 * (resp. scored) calls, or they are null: a p95 of two calls says nothing.
 */
export function snapshotOf(rows: readonly InvocationSample[], minMetricSamples: number): MetricsSnapshot {
  const latencies: number[] = [];
  const qualities: number[] = [];
  const errorCodes: Record<string, number> = {};
  let failures = 0;
  let repairs = 0;
  let cutOff = 0;
  let modelCalls = 0;
  let from: string | null = null;
  let to: string | null = null;
  for (const row of rows) {
    if (row.success) latencies.push(row.latency_ms);
    else {
      failures += 1;
      const code = row.error_code ?? "UNKNOWN";
      errorCodes[code] = (errorCodes[code] ?? 0) + 1;
    }
    if (row.quality !== null && Number.isFinite(row.quality)) qualities.push(row.quality);
    if (row.error_code === "MODEL_OUTPUT_INVALID") {
      repairs += 1;
      if (row.error_message?.includes(cutOffPhrase)) cutOff += 1;
    }
    modelCalls += row.model_calls;
    if (from === null || row.started_at < from) from = row.started_at;
    if (to === null || row.started_at > to) to = row.started_at;
  }
  const samples = rows.length;
  return {
    samples,
    failures,
    error_rate: samples > 0 ? failures / samples : 0,
    latency_p95_ms:
      latencies.length >= minMetricSamples && latencies.length > 0
        ? (percentiles({ values: latencies, ps: [95], method: "nearest_rank" })[0] ?? null)
        : null,
    latency_samples: latencies.length,
    quality: qualities.length >= minMetricSamples && qualities.length > 0 ? mean(qualities) : null,
    quality_samples: qualities.length,
    repair_rate: samples > 0 ? repairs / samples : 0,
    cut_off: cutOff,
    error_codes: errorCodes,
    model_calls_mean: samples > 0 ? modelCalls / samples : 0,
    from,
    to,
  };
}

/** A metric's value in a snapshot (null when it cannot be computed). */
export function metricValue(snapshot: MetricsSnapshot, metric: MetricName): number | null {
  if (snapshot.samples === 0) return null;
  switch (metric) {
    case "error_rate":
      return snapshot.error_rate;
    case "latency_p95":
      return snapshot.latency_p95_ms;
    case "quality":
      return snapshot.quality;
    case "repair_rate":
      return snapshot.repair_rate;
  }
}

export function mean(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return values.length > 0 ? total / values.length : 0;
}

/** Unbiased sample variance (0 for fewer than two values). */
export function variance(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const average = mean(values);
  let total = 0;
  for (const value of values) total += (value - average) ** 2;
  return total / (values.length - 1);
}

/**
 * Exponential moving average of `values` in order: e₀ = v₀, eᵢ = α·vᵢ + (1 − α)·eᵢ₋₁.
 * Null for no values.
 */
export function exponentialMovingAverage(values: readonly number[], alpha: number): number | null {
  let average: number | null = null;
  for (const value of values) average = average === null ? value : alpha * value + (1 - alpha) * average;
  return average;
}

/** The metrics' keys in a snapshot, for messages. */
export function describeMetric(metric: MetricName, value: number | null): string {
  if (value === null) return "n/a";
  if (metric === "latency_p95") return `${Math.round(value)} ms`;
  if (metric === "quality") return value.toFixed(2);
  return `${(value * 100).toFixed(1)}%`;
}

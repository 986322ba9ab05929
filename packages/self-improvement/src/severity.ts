import type { MetricName, Severity } from "./types.ts";

/** Design §14.2: ≥ 100 % critical, ≥ 50 % high, ≥ 25 % warning, else info. */
export function severityFromDeviation(deviationPct: number): Severity {
  if (deviationPct >= 100) return "critical";
  if (deviationPct >= 50) return "high";
  if (deviationPct >= 25) return "warning";
  return "info";
}

/** Whether a larger value of the metric is worse (rates, latency) or better (quality). */
export function higherIsWorse(metric: MetricName): boolean {
  return metric !== "quality";
}

/**
 * How far `observed` is from `baseline`, in percent of the baseline, signed so
 * that a positive figure is a deterioration (design §14.2): for rates and
 * latency (observed − baseline) / baseline; for quality (baseline − observed)
 * / baseline. A zero baseline gives 100 when the observation is worse, else 0.
 */
export function deviationPercent(metric: MetricName, observed: number, baseline: number): number {
  const worse = higherIsWorse(metric) ? observed - baseline : baseline - observed;
  if (baseline === 0) return worse > 0 ? 100 : 0;
  // Rounded so that float noise never moves a deviation across a threshold (0.3 vs 0.2 is 50 %, not 49.99…).
  return Math.round((worse / Math.abs(baseline)) * 100 * 1e9) / 1e9;
}

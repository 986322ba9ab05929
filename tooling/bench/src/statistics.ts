/** Latency figures of one series, in milliseconds. */
export interface Summary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

/** The `q`-quantile (0..1) of sorted values, nearest-rank. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error("no values");
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** p50 / p95 / p99 and the mean of `values`. */
export function summarize(values: readonly number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { count: sorted.length, p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), p99: quantile(sorted, 0.99), mean };
}

/** Renders rows of `ours` vs `baseline` summaries with ratios. */
export function formatComparison(title: string, ours: Summary, baseline: Summary): string {
  const cell = (value: number) => value.toFixed(value < 10 ? 3 : 1).padStart(9);
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`.padStart(8);
  return [
    `${title} (n=${ours.count} each, ms)`,
    `               ${"p50".padStart(9)}${"p95".padStart(9)}${"p99".padStart(9)}${"mean".padStart(9)}`,
    `  deliberate   ${cell(ours.p50)}${cell(ours.p95)}${cell(ours.p99)}${cell(ours.mean)}`,
    `  baseline     ${cell(baseline.p50)}${cell(baseline.p95)}${cell(baseline.p99)}${cell(baseline.mean)}`,
    `  ratio        ${ratio(ours.p50, baseline.p50)} ${ratio(ours.p95, baseline.p95)} ${ratio(ours.p99, baseline.p99)} ${ratio(ours.mean, baseline.mean)}`,
  ].join("\n");
}

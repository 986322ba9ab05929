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
  return {
    count: sorted.length,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    p99: quantile(sorted, 0.99),
    mean,
  };
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

/** Deliberate against its peer and the bare baseline, all measured in the same run. */
export interface Series {
  deliberate: Summary;
  peer?: Summary;
  bare: Summary;
}

/** Goals on deliberate's ratio to its reference (the peer, else bare): a number is a p50 goal. */
export type SeriesGoals = number | { p50?: number; p95?: number };

/**
 * Renders deliberate / peer / bare rows (p50, p95, p99, mean) and the ratios
 * to each baseline; with goals, says whether deliberate's p50 (and p95) ratio
 * to the peer (or to bare when there is no peer) meets each.
 */
export function formatSeries(title: string, series: Series, goals?: SeriesGoals): string {
  const cell = (value: number) => value.toFixed(value < 10 ? 3 : 1).padStart(9);
  const row = (label: string, summary: Summary) =>
    `  ${label.padEnd(13)}${cell(summary.p50)}${cell(summary.p95)}${cell(summary.p99)}${cell(summary.mean)}`;
  const ratio = (label: string, baseline: Summary) =>
    `  ${label.padEnd(13)}${[
      series.deliberate.p50 / baseline.p50,
      series.deliberate.p95 / baseline.p95,
      series.deliberate.p99 / baseline.p99,
      series.deliberate.mean / baseline.mean,
    ]
      .map((value) => `${value.toFixed(2)}x`.padStart(9))
      .join("")}`;
  const reference = series.peer ?? series.bare;
  const wanted = typeof goals === "number" ? { p50: goals } : (goals ?? {});
  const verdicts = (["p50", "p95"] as const).flatMap((quantile) => {
    const goal = wanted[quantile];
    if (goal === undefined) return [];
    const measured = series.deliberate[quantile] / reference[quantile];
    return [
      `  goal ${quantile} <= ${goal.toFixed(2)}x ${series.peer ? "peer" : "bare"}: ${measured <= goal ? "met" : "MISSED"} (${measured.toFixed(2)}x)`,
    ];
  });
  return [
    `${title} (n=${series.deliberate.count} each, ms)`,
    `  ${"".padEnd(13)}${"p50".padStart(9)}${"p95".padStart(9)}${"p99".padStart(9)}${"mean".padStart(9)}`,
    row("deliberate", series.deliberate),
    ...(series.peer ? [row("peer", series.peer)] : []),
    row("bare", series.bare),
    ...(series.peer ? [ratio("/ peer", series.peer)] : []),
    ratio("/ bare", series.bare),
    ...verdicts,
  ].join("\n");
}

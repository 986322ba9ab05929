import type { MonitorConfig } from "./config.ts";
import { type MetricsSnapshot, metricValue, snapshotOf } from "./metrics.ts";
import { deviationPercent, higherIsWorse, severityFromDeviation } from "./severity.ts";
import { type InvocationSample, type MetricName, metricNames, type Severity, severityRank } from "./types.ts";

/** One value per watched metric (null where it cannot be computed). */
export type MetricFigures = Record<MetricName, number | null>;

/** A tool's (or a mode's) baseline and current window. */
export interface Baseline {
  kind: "tool" | "mode";
  name: string;
  /** `ready` when both the window and the baseline have the minimum samples. */
  status: "ready" | "insufficient_samples";
  note: string | null;
  /** The current window: the most recent calls (at most `windowSize`) since `window_from`. */
  window: MetricsSnapshot;
  /** The window's lower bound: the window age limit, or the last setting change affecting the tool. */
  window_from: string;
  /**
   * The baseline: the EMA (α) over chunks of `windowSize` earlier calls, oldest
   * first, frozen while a trigger is open: a chunk that would trigger against
   * the EMA so far is left out of that metric's EMA, until a chunk is back within it.
   */
  ema: MetricFigures;
  /**
   * Per metric, when the regression the baseline is frozen against began (the
   * first call of the first chunk left out); null when that metric's baseline
   * absorbed every chunk.
   */
  frozen_since: Record<MetricName, string | null>;
  /** The same earlier calls pooled (the rolling figures). */
  rolling: MetricsSnapshot;
  chunks: number;
}

/** A metric that deviates from its baseline by 25 % or more (and by at least the metric's floor). */
export interface Trigger {
  tool: string;
  metric: MetricName;
  observed: number;
  baseline: number;
  /** Where a warning starts: the baseline worsened by 25 %, or by the floor when that is further. */
  threshold: number;
  deviation_pct: number;
  severity: Severity;
  window_samples: number;
  baseline_samples: number;
  /** The window the trigger was measured on: its lower bound and its newest call. */
  window_from: string;
  window_to: string | null;
}

/** What the monitor found: every tool's and mode's baseline, and the triggers, worst first. */
export interface HealthReport {
  generated_at: string;
  healthy: boolean;
  triggers: Trigger[];
  tools: Baseline[];
  modes: Baseline[];
  /** Every tool's current window together. */
  overall: MetricsSnapshot;
}

export interface MonitorInput {
  /** Invocation rows, oldest first. */
  rows: readonly InvocationSample[];
  now: Date;
  config: MonitorConfig;
  /** Per tool, the last time a setting it depends on changed: its window starts no earlier. */
  changedAt?: ReadonlyMap<string, string>;
  /** The modes each tool was seen to use (for the per-mode baselines). */
  toolModes?: ReadonlyMap<string, readonly string[]>;
}

/** Latency and quality need this many scored calls in a set (half the minimum sample count). */
export function metricSampleFloor(config: Pick<MonitorConfig, "minSamples">): number {
  return Math.max(1, Math.ceil(config.minSamples / 2));
}

function floorOf(config: MonitorConfig, metric: MetricName): number {
  switch (metric) {
    case "error_rate":
      return config.floors.errorRate;
    case "latency_p95":
      return config.floors.latencyMs;
    case "quality":
      return config.floors.quality;
    case "repair_rate":
      return config.floors.repairRate;
  }
}

/** Chunks of `size` rows, oldest first; an oldest remainder smaller than `minimum` joins the first chunk. */
function chunksOf<T>(rows: readonly T[], size: number, minimum: number): T[][] {
  const count = Math.floor(rows.length / size);
  if (count === 0) return rows.length > 0 ? [[...rows]] : [];
  const remainder = rows.length - count * size;
  const chunks: T[][] = [];
  let start = 0;
  if (remainder >= minimum) {
    chunks.push(rows.slice(0, remainder));
    start = remainder;
  }
  for (let index = 0; index < count; index += 1) {
    const end = start + size + (index === 0 && remainder < minimum ? remainder : 0);
    chunks.push(rows.slice(start, end));
    start = end;
  }
  return chunks;
}

/** Whether `observed` is worse than `reference` by the trigger's margin: ≥ 25 % and at least the metric's floor. */
function wouldTrigger(metric: MetricName, observed: number, reference: number, config: MonitorConfig): boolean {
  const worseBy = higherIsWorse(metric) ? observed - reference : reference - observed;
  if (worseBy < floorOf(config, metric) || worseBy <= 0) return false;
  return severityFromDeviation(deviationPercent(metric, observed, reference)) !== "info";
}

/**
 * Each metric's EMA over the chunks, oldest first, frozen while a trigger is
 * open: a chunk worse than the EMA so far by a trigger's margin opens it and is
 * left out; the first chunk back within the EMA closes it and is folded in
 * again. A lasting regression is never absorbed into its own baseline (60 good
 * calls then 300 failing ones compare against 0 %, not against a baseline the
 * failures pulled up to 83 %); improvements are absorbed as they come.
 */
function frozenEma(
  chunks: readonly MetricsSnapshot[],
  config: MonitorConfig,
): { ema: MetricFigures; frozenSince: Record<MetricName, string | null> } {
  const ema = {} as MetricFigures;
  const frozenSince = {} as Record<MetricName, string | null>;
  for (const metric of metricNames) {
    let average: number | null = null;
    let since: string | null = null;
    for (const chunk of chunks) {
      const value = metricValue(chunk, metric);
      if (value === null) continue;
      if (average !== null && wouldTrigger(metric, value, average, config)) {
        since ??= chunk.from;
        continue;
      }
      since = null;
      average = average === null ? value : config.alpha * value + (1 - config.alpha) * average;
    }
    ema[metric] = average;
    frozenSince[metric] = since;
  }
  return { ema, frozenSince };
}

function baselineOf(input: {
  kind: "tool" | "mode";
  name: string;
  window: InvocationSample[];
  earlier: InvocationSample[];
  windowFrom: string;
  config: MonitorConfig;
}): Baseline {
  const { config } = input;
  const floor = metricSampleFloor(config);
  const chunks = chunksOf(input.earlier, config.windowSize, config.minSamples).map((chunk) => snapshotOf(chunk, floor));
  const { ema, frozenSince } = frozenEma(chunks, config);
  const problems: string[] = [];
  if (input.window.length < config.minSamples)
    problems.push(`${input.window.length} calls in the window (needs ${config.minSamples})`);
  if (input.earlier.length < config.minSamples)
    problems.push(`${input.earlier.length} calls in the baseline (needs ${config.minSamples})`);
  return {
    kind: input.kind,
    name: input.name,
    status: problems.length === 0 ? "ready" : "insufficient_samples",
    note: problems.length === 0 ? null : problems.join("; "),
    window: snapshotOf(input.window, floor),
    window_from: input.windowFrom,
    ema,
    frozen_since: frozenSince,
    rolling: snapshotOf(input.earlier, floor),
    chunks: chunks.length,
  };
}

/** The triggers of one ready baseline: each metric worse than its EMA by ≥ 25 % and by at least its floor. */
export function triggersOf(baseline: Baseline, config: MonitorConfig): Trigger[] {
  if (baseline.status !== "ready") return [];
  const triggers: Trigger[] = [];
  for (const metric of metricNames) {
    const observed = metricValue(baseline.window, metric);
    const reference = baseline.ema[metric];
    if (observed === null || reference === null) continue;
    const floor = floorOf(config, metric);
    if (!wouldTrigger(metric, observed, reference, config)) continue;
    const deviation = deviationPercent(metric, observed, reference);
    const severity = severityFromDeviation(deviation);
    const threshold = higherIsWorse(metric)
      ? Math.max(reference * 1.25, reference + floor)
      : Math.min(reference * 0.75, reference - floor);
    triggers.push({
      tool: baseline.name,
      metric,
      observed,
      baseline: reference,
      threshold,
      deviation_pct: deviation,
      severity,
      window_samples: baseline.window.samples,
      baseline_samples: baseline.rolling.samples,
      window_from: baseline.window.from ?? baseline.window_from,
      window_to: baseline.window.to,
    });
  }
  return triggers;
}

/** Worst first: severity, then deviation. */
export function compareTriggers(a: Trigger, b: Trigger): number {
  return (
    severityRank(b.severity) - severityRank(a.severity) ||
    b.deviation_pct - a.deviation_pct ||
    a.tool.localeCompare(b.tool)
  );
}

/**
 * Phase 1: baselines per tool and per mode from the invocation rows, and the
 * triggers. A tool's current window is its latest `windowSize` calls no older
 * than `windowMs` and no older than the last change of a setting it depends
 * on; everything earlier (within the lookback) is its baseline, whose value
 * per metric is the EMA over chunks of `windowSize` calls.
 */
export function buildHealthReport(input: MonitorInput): HealthReport {
  const { config, now } = input;
  const excluded = new Set(config.excludeTools);
  const ageLimit = new Date(now.getTime() - config.windowMs).toISOString();
  const byTool = new Map<string, InvocationSample[]>();
  for (const row of input.rows) {
    if (excluded.has(row.tool)) continue;
    const list = byTool.get(row.tool);
    if (list) list.push(row);
    else byTool.set(row.tool, [row]);
  }
  const tools: Baseline[] = [];
  const modeParts = new Map<string, { window: InvocationSample[]; earlier: InvocationSample[]; windowFrom: string }>();
  const allWindows: InvocationSample[] = [];
  for (const [tool, rows] of [...byTool.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const changed = input.changedAt?.get(tool);
    const windowFrom = changed !== undefined && changed > ageLimit ? changed : ageLimit;
    // A call belongs to the settings in force when it STARTED: one started before a change is not in the window after it.
    const recent = rows.filter((row) => row.started_at >= windowFrom);
    const window = recent.slice(-config.windowSize);
    const inWindow = new Set(window.map((row) => row.id));
    const earlier = rows.filter((row) => !inWindow.has(row.id));
    allWindows.push(...window);
    tools.push(baselineOf({ kind: "tool", name: tool, window, earlier, windowFrom, config }));
    for (const mode of input.toolModes?.get(tool) ?? []) {
      const part = modeParts.get(mode) ?? { window: [], earlier: [], windowFrom };
      part.window.push(...window);
      part.earlier.push(...earlier);
      if (windowFrom < part.windowFrom) part.windowFrom = windowFrom;
      modeParts.set(mode, part);
    }
  }
  const byTime = (a: InvocationSample, b: InvocationSample) =>
    a.started_at < b.started_at ? -1 : a.started_at > b.started_at ? 1 : a.id.localeCompare(b.id);
  const modes = [...modeParts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([mode, part]) => {
      const window = part.window.sort(byTime);
      const kept = window.slice(-config.windowSize);
      const dropped = window.slice(0, window.length - kept.length);
      return baselineOf({
        kind: "mode",
        name: mode,
        window: kept,
        earlier: [...dropped, ...part.earlier].sort(byTime),
        windowFrom: part.windowFrom,
        config,
      });
    });
  const triggers = tools.flatMap((baseline) => triggersOf(baseline, config)).sort(compareTriggers);
  return {
    generated_at: now.toISOString(),
    healthy: triggers.length === 0,
    triggers,
    tools,
    modes,
    overall: snapshotOf(allWindows.sort(byTime), metricSampleFloor(config)),
  };
}

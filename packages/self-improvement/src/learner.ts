import type { LearnerConfig, MonitorConfig } from "./config.ts";
import { describeMetric, mean, type MetricsSnapshot, metricValue, snapshotOf, variance } from "./metrics.ts";
import { metricSampleFloor } from "./monitor.ts";
import type { ActionRecord, MetricComparison } from "./records.ts";
import { type InvocationSample, type MetricName, metricNames, targetLabel } from "./types.ts";

/** Two-sided 95 % critical value. */
const zCritical = 1.959964;
/** z for 80 % power: with zCritical, a difference of 2.8 standard errors is detected four times in five. */
const zPower = 0.841621;

/**
 * How much each metric counts in the reward, by the metric that triggered the
 * action. The error rate always weighs at least half when it did not trigger:
 * making calls fail to make them faster is not an improvement.
 */
export const rewardWeights: Readonly<Record<MetricName, Readonly<Record<MetricName, number>>>> = {
  error_rate: { error_rate: 0.6, latency_p95: 0.2, quality: 0.1, repair_rate: 0.1 },
  latency_p95: { latency_p95: 0.4, error_rate: 0.5, quality: 0.05, repair_rate: 0.05 },
  quality: { quality: 0.5, error_rate: 0.3, latency_p95: 0.1, repair_rate: 0.1 },
  repair_rate: { repair_rate: 0.5, error_rate: 0.3, latency_p95: 0.1, quality: 0.1 },
};

/** The measured effect of an action (design §14.2 NormalizedReward), from invocation rows only. */
export interface RewardMeasurement {
  /** In [−1, 1]: the weighted, significant improvements (positive: better). */
  value: number;
  /** From the sample size: n / (n + confidenceHalfSamples), n the smaller side. */
  confidence: number;
  verdict: "improved" | "regressed" | "no_effect";
  breakdown: MetricComparison[];
  before: MetricsSnapshot;
  after: MetricsSnapshot;
}

export interface RewardInput {
  /** Calls of the action's tools before it (the window it was diagnosed on), oldest first. */
  before: readonly InvocationSample[];
  /** Calls of the same tools after it, oldest first. */
  after: readonly InvocationSample[];
  /** The metric that triggered the action. */
  metric: MetricName;
  monitor: Pick<MonitorConfig, "floors" | "minSamples">;
  learner: Pick<LearnerConfig, "rewardThreshold" | "confidenceHalfSamples">;
}

function floorOf(monitor: RewardInput["monitor"], metric: MetricName): number {
  return {
    error_rate: monitor.floors.errorRate,
    latency_p95: monitor.floors.latencyMs,
    quality: monitor.floors.quality,
    repair_rate: monitor.floors.repairRate,
  }[metric];
}

function proportionComparison(input: {
  failuresBefore: number;
  before: number;
  failuresAfter: number;
  after: number;
  floor: number;
}) {
  const { before, after } = input;
  const p1 = input.failuresBefore / before;
  const p2 = input.failuresAfter / after;
  // Smoothed proportions keep the error finite when a side is all-or-nothing (0 % -> 100 %).
  const q1 = (input.failuresBefore + 0.5) / (before + 1);
  const q2 = (input.failuresAfter + 0.5) / (after + 1);
  const standardError = Math.sqrt((q1 * (1 - q1)) / before + (q2 * (1 - q2)) / after);
  const difference = p2 - p1;
  const significant =
    Math.abs(difference) >= zCritical * standardError && Math.abs(difference) >= input.floor && difference !== 0;
  const scale = Math.max(p1, p2);
  return {
    before: p1,
    after: p2,
    difference,
    standardError,
    significant,
    improvement: significant && scale > 0 ? (p1 - p2) / scale : 0,
  };
}

function meanComparison(input: { before: number[]; after: number[] }) {
  const standardError = Math.sqrt(
    variance(input.before) / input.before.length + variance(input.after) / input.after.length,
  );
  const difference = mean(input.after) - mean(input.before);
  return {
    standardError,
    difference,
    significant: difference !== 0 && Math.abs(difference) >= zCritical * standardError,
  };
}

/**
 * Phase 4: the reward of an action measured from invocation rows of the same
 * tools before and after it. Per metric: both sides' figures and sample
 * counts, the standard error of the difference, the minimum detectable
 * effect at these sample sizes, and whether the difference is significant
 * (|difference| ≥ 1.96 standard errors and ≥ the metric's floor). Error and
 * repair rates use the two-proportion test; latency compares p95s, judged by
 * Welch's test on the successful calls' mean latency; quality by Welch's
 * test on the mean. Only significant differences count; the reward is their
 * weighted mean (`rewardWeights`) over the metrics with data on both sides (a
 * rate with no event on either side is left out), in [−1, 1]. A significant rise
 * in the error rate is a regression whatever else improved. Nothing here is
 * estimated or asked of a model.
 */
export function measureReward(input: RewardInput): RewardMeasurement {
  const metricFloor = metricSampleFloor(input.monitor);
  const before = snapshotOf(input.before, metricFloor);
  const after = snapshotOf(input.after, metricFloor);
  const weights = rewardWeights[input.metric];
  const breakdown: MetricComparison[] = [];
  for (const metric of metricNames) {
    const floor = floorOf(input.monitor, metric);
    const weight = weights[metric];
    const empty: MetricComparison = {
      metric,
      before: metricValue(before, metric),
      after: metricValue(after, metric),
      before_samples: 0,
      after_samples: 0,
      difference: null,
      standard_error: null,
      minimum_detectable_effect: null,
      significant: false,
      improvement: 0,
      weight: 0,
    };
    if (metric === "error_rate" || metric === "repair_rate") {
      if (before.samples === 0 || after.samples === 0) {
        breakdown.push(empty);
        continue;
      }
      const count = (rows: readonly InvocationSample[]) =>
        rows.filter((row) => (metric === "error_rate" ? !row.success : row.error_code === "MODEL_OUTPUT_INVALID"))
          .length;
      const failuresBefore = count(input.before);
      const failuresAfter = count(input.after);
      const result = proportionComparison({
        failuresBefore,
        before: before.samples,
        failuresAfter,
        after: after.samples,
        floor,
      });
      breakdown.push({
        metric,
        before: result.before,
        after: result.after,
        before_samples: before.samples,
        after_samples: after.samples,
        difference: result.difference,
        standard_error: result.standardError,
        minimum_detectable_effect: (zCritical + zPower) * result.standardError,
        significant: result.significant,
        improvement: result.improvement,
        // A rate with no event on either side says nothing about the action: it does not dilute the reward.
        weight: failuresBefore + failuresAfter > 0 ? weight : 0,
      });
      continue;
    }
    const values = (rows: readonly InvocationSample[]) =>
      metric === "latency_p95"
        ? rows.filter((row) => row.success).map((row) => row.latency_ms)
        : rows.flatMap((row) => (row.quality !== null ? [row.quality] : []));
    const beforeValues = values(input.before);
    const afterValues = values(input.after);
    const beforeFigure = metricValue(before, metric);
    const afterFigure = metricValue(after, metric);
    if (beforeFigure === null || afterFigure === null || beforeValues.length < 2 || afterValues.length < 2) {
      breakdown.push({ ...empty, before_samples: beforeValues.length, after_samples: afterValues.length });
      continue;
    }
    const test = meanComparison({ before: beforeValues, after: afterValues });
    const difference = afterFigure - beforeFigure;
    // The figure (p95 or mean) and the test (on means) must agree on the direction.
    const significant =
      test.significant && Math.abs(difference) >= floor && Math.sign(difference) === Math.sign(test.difference);
    const scale = Math.max(Math.abs(beforeFigure), Math.abs(afterFigure));
    const better = metric === "quality" ? difference : -difference;
    breakdown.push({
      metric,
      before: beforeFigure,
      after: afterFigure,
      before_samples: beforeValues.length,
      after_samples: afterValues.length,
      difference,
      standard_error: test.standardError,
      minimum_detectable_effect: (zCritical + zPower) * test.standardError,
      significant,
      improvement: significant && scale > 0 ? better / scale : 0,
      weight,
    });
  }
  const totalWeight = breakdown.reduce((sum, entry) => sum + entry.weight, 0);
  const value =
    totalWeight > 0 ? breakdown.reduce((sum, entry) => sum + entry.weight * entry.improvement, 0) / totalWeight : 0;
  const smaller = Math.min(before.samples, after.samples);
  const confidence = smaller / (smaller + input.learner.confidenceHalfSamples);
  const errorRate = breakdown.find((entry) => entry.metric === "error_rate");
  const errorsRose = errorRate?.significant === true && (errorRate.difference ?? 0) > 0;
  const verdict =
    errorsRose || value <= -input.learner.rewardThreshold
      ? "regressed"
      : value >= input.learner.rewardThreshold
        ? "improved"
        : "no_effect";
  return { value: Math.max(-1, Math.min(1, value)), confidence, verdict, breakdown, before, after };
}

/** The lesson of a measured action, in words a later analysis (rules or model) and an operator can use. */
export function lessonOf(
  action: Pick<ActionRecord, "scope" | "setting" | "from_value" | "to_value" | "tools">,
  measurement: RewardMeasurement,
): string {
  const target = targetLabel(action.scope, action.setting);
  const changes = measurement.breakdown
    .filter((entry) => entry.significant)
    .map(
      (entry) =>
        `${entry.metric} ${describeMetric(entry.metric, entry.before)} → ${describeMetric(entry.metric, entry.after)}`,
    );
  const measured = `${measurement.before.samples} calls before, ${measurement.after.samples} after; reward ${measurement.value.toFixed(2)}, confidence ${measurement.confidence.toFixed(2)}`;
  const tools = action.tools.join(", ") || "(no tool)";
  switch (measurement.verdict) {
    case "improved":
      return `Changing ${target} ${action.from_value} → ${action.to_value} improved ${tools}: ${changes.join(", ")} (${measured}); kept.`;
    case "regressed":
      return `Changing ${target} ${action.from_value} → ${action.to_value} made ${tools} worse: ${changes.join(", ") || "the weighted metrics fell"} (${measured}); rolled back. Do not repeat it for this cause.`;
    case "no_effect":
      return `Changing ${target} ${action.from_value} → ${action.to_value} had no measurable effect on ${tools} (${measured}); reverted. The cause lies elsewhere.`;
  }
}

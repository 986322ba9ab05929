import type { AllowlistEntry, SelfImprovementConfig } from "../config.ts";
import { describeMetric } from "../metrics.ts";
import type { Baseline, Trigger } from "../monitor.ts";
import type { LessonVerdict, SuggestedAction } from "../records.ts";
import type { AdjustableSetting, Direction } from "../types.ts";

/** A setting the analysis may move: where it stands now and how far the allowlist lets it go. */
export interface TargetOption {
  scope: string;
  setting: AdjustableSetting;
  /** `linear.timeoutMs`. */
  label: string;
  /** The value in force now (the provider's default timeout for a mode that sets none). */
  current: number;
  /** The override in force now, and the action that set it (null: none). */
  override: number | null;
  override_action_id: string | null;
  entry: AllowlistEntry;
}

/** A lesson as the analysis sees it. */
export interface Lesson {
  created_at: string;
  tool: string;
  scope: string;
  setting: AdjustableSetting;
  direction: Direction;
  verdict: LessonVerdict;
  text: string;
}

/** Everything one analysis looks at. */
export interface AnalysisInput {
  trigger: Trigger;
  /** The triggering tool's baseline and window. */
  baseline: Baseline;
  /** The modes the tool was seen to ask. */
  modes: readonly string[];
  targets: readonly TargetOption[];
  /** Every lesson within `lessonTtlMs`, newest first (the model's prompt shows the first `maxLessons`; the guards check all). */
  lessons: readonly Lesson[];
  now: Date;
  config: SelfImprovementConfig;
  /** Why the rules are used, when they are (said in the diagnosis). */
  rulesBecause?: string;
}

/** What an analyzer returns; the loop records it as a diagnosis. */
export interface DiagnosisDraft {
  description: string;
  suspected_cause: string | null;
  action: SuggestedAction;
  rationale: string | null;
  analyzer: "model" | "rules";
  rule: string | null;
}

/** One line describing a trigger: tool, metric, observed vs baseline, deviation, severity, samples. */
export function describeTrigger(trigger: Trigger): string {
  return (
    `${trigger.tool} ${trigger.metric} ${describeMetric(trigger.metric, trigger.observed)} against a baseline of ${describeMetric(trigger.metric, trigger.baseline)} ` +
    `(${trigger.deviation_pct.toFixed(0)}% worse, ${trigger.severity}; ${trigger.window_samples} recent calls, ${trigger.baseline_samples} in the baseline)`
  );
}

/** The failure codes of the window, most frequent first: `PROVIDER_TIMEOUT ×12`. */
export function describeErrorCodes(baseline: Baseline): string {
  const entries = Object.entries(baseline.window.error_codes).sort(([, a], [, b]) => b - a);
  return entries.length === 0 ? "none" : entries.map(([code, count]) => `${code} ×${count}`).join(", ");
}

/** Lessons that rule out moving `label` in `direction` again (regressed, no effect, rejected, undone by an operator). */
export function ruledOutBy(
  lessons: readonly Lesson[],
  scope: string,
  setting: AdjustableSetting,
  direction: Direction,
): Lesson | undefined {
  return lessons.find(
    (lesson) =>
      lesson.scope === scope &&
      lesson.setting === setting &&
      lesson.direction === direction &&
      lesson.verdict !== "improved" &&
      lesson.verdict !== "inconclusive",
  );
}

import type { MetricsSnapshot } from "./metrics.ts";
import type { Trigger } from "./monitor.ts";
import type { AdjustableSetting, Direction, MetricName, Severity } from "./types.ts";

/**
 * What a diagnosis suggests: move one setting by whole steps (the numbers are
 * computed in code from the allowlist), or nothing, with why and until when.
 * Every adjustment is reversible: the value and override it replaces are kept.
 */
export type SuggestedAction =
  | {
      kind: "adjust";
      scope: string;
      setting: AdjustableSetting;
      direction: Direction;
      steps: number;
      from: number;
      to: number;
      /** The override in force when diagnosed (null: none); approval checks it is still the same. */
      previous_override: number | null;
      previous_action_id: string | null;
    }
  | { kind: "none"; reason: string; revisit_after: string };

export const diagnosisStatuses = ["pending", "applied", "refused", "rejected", "no_action", "expired"] as const;
export type DiagnosisStatus = (typeof diagnosisStatuses)[number];

/** A diagnosis (design §14.2 SelfDiagnosis). */
export interface DiagnosisRecord {
  id: string;
  created_at: string;
  updated_at: string;
  tool: string;
  metric: MetricName;
  severity: Severity;
  deviation_pct: number;
  trigger: Trigger;
  description: string;
  suspected_cause: string | null;
  action: SuggestedAction;
  rationale: string | null;
  /** Who diagnosed: the configured model (a structured-output mode) or the documented rules. */
  analyzer: "model" | "rules";
  /** The rule that fired, for rule-based diagnoses. */
  rule: string | null;
  status: DiagnosisStatus;
  status_reason: string | null;
  action_id: string | null;
}

export const actionStatuses = ["evaluating", "kept", "rolled_back", "reverted", "inconclusive"] as const;
/**
 * `evaluating` until the learner has enough calls after it; then `kept`
 * (measured improvement), `rolled_back` (measured regression, or by an
 * operator), `reverted` (no measurable effect, undone) or `inconclusive`
 * (too few calls before the deadline; kept).
 */
export type ActionStatus = (typeof actionStatuses)[number];

export interface ActionRecord {
  id: string;
  diagnosis_id: string;
  scope: string;
  setting: AdjustableSetting;
  direction: Direction;
  from_value: number;
  to_value: number;
  previous_override: number | null;
  previous_action_id: string | null;
  /** The tools whose calls measure it (those that use the mode; every tool for the engine). */
  tools: string[];
  metric: MetricName;
  before_from: string;
  applied_at: string;
  applied_by: "loop" | "operator";
  status: ActionStatus;
  status_reason: string | null;
  evaluated_at: string | null;
  rolled_back_at: string | null;
  rolled_back_by: "learner" | "operator" | null;
  reward: number | null;
  confidence: number | null;
  pre_metrics: MetricsSnapshot;
  post_metrics: MetricsSnapshot | null;
}

/** One metric compared before and after an action. */
export interface MetricComparison {
  metric: MetricName;
  before: number | null;
  after: number | null;
  before_samples: number;
  after_samples: number;
  /** after − before, in the metric's unit (null when either side lacks data). */
  difference: number | null;
  standard_error: number | null;
  /** Smallest difference these sample sizes detect (95 % confidence, 80 % power): 2.8 standard errors. */
  minimum_detectable_effect: number | null;
  significant: boolean;
  /** Signed improvement in [−1, 1] (positive: better); 0 unless significant. */
  improvement: number;
  weight: number;
}

export const lessonVerdicts = [
  "improved",
  "regressed",
  "no_effect",
  "inconclusive",
  "rejected",
  "rolled_back_by_operator",
] as const;
export type LessonVerdict = (typeof lessonVerdicts)[number];

export interface LearningRecord {
  id: string;
  created_at: string;
  action_id: string | null;
  diagnosis_id: string | null;
  tool: string;
  scope: string;
  setting: AdjustableSetting;
  direction: Direction;
  verdict: LessonVerdict;
  reward: number | null;
  confidence: number | null;
  breakdown: MetricComparison[];
  lessons: string[];
}

export interface OverrideRecord {
  scope: string;
  setting: AdjustableSetting;
  value: number;
  action_id: string | null;
  updated_at: string;
}

export const cycleOutcomes = [
  "blocked",
  "no_action",
  "advised",
  "applied",
  "refused",
  "failed",
  "off",
  "paused",
] as const;
export type CycleOutcome = (typeof cycleOutcomes)[number];

export interface CycleRecord {
  id: string;
  started_at: string;
  finished_at: string;
  holder: string;
  outcome: CycleOutcome;
  reason: string;
  diagnosis_id: string | null;
  action_id: string | null;
  details: Record<string, unknown>;
}

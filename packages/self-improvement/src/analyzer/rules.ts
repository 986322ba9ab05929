import { stepsWithinBounds, stepValue } from "../allowlist.ts";
import { type AdjustableSetting, type Direction, engineScope, type MetricName, targetLabel } from "../types.ts";
import {
  type AnalysisInput,
  type DiagnosisDraft,
  describeErrorCodes,
  describeTrigger,
  ruledOutBy,
} from "./analysis-input.ts";

/** One documented rule: when it applies, what it moves, and why. */
export interface Rule {
  id: string;
  metrics: readonly MetricName[];
  /** Whether the window's evidence fits (e.g. most failures are timeouts). */
  applies(input: AnalysisInput): boolean;
  /** The setting it moves: on each of the tool's modes, or on the engine. */
  scope: "modes" | "engine";
  setting: AdjustableSetting;
  direction: Direction;
  cause: string;
  rationale: string;
}

/** The error code behind at least half of the window's failures, if any. */
function dominantError(input: AnalysisInput): string | undefined {
  const { window } = input.baseline;
  const [code, count] = Object.entries(window.error_codes).sort(([, a], [, b]) => b - a)[0] ?? [];
  return code !== undefined && count !== undefined && window.failures > 0 && count * 2 >= window.failures
    ? code
    : undefined;
}

/**
 * The deterministic rules, tried in order (documented in the README). Each
 * proposes one step (two for a critical trigger) of one setting; a rule is
 * skipped when its setting is not adjustable, already at its bound, or a
 * lesson rules the same move out.
 */
export const rules: readonly Rule[] = [
  {
    id: "timeouts-raise-timeout",
    metrics: ["error_rate"],
    applies: (input) => dominantError(input) === "PROVIDER_TIMEOUT",
    scope: "modes",
    setting: "timeoutMs",
    direction: "increase",
    cause:
      "Model calls time out before the provider answers: the mode's timeout is shorter than the provider's current latency.",
    rationale: "Most failures are PROVIDER_TIMEOUT; a longer timeout lets answers that are slow but coming arrive.",
  },
  {
    id: "cut-off-raise-max-tokens",
    metrics: ["error_rate", "repair_rate"],
    applies: (input) =>
      dominantError(input) === "MODEL_OUTPUT_INVALID" &&
      input.baseline.window.cut_off * 2 >=
        Math.max(1, Math.round(input.baseline.window.repair_rate * input.baseline.window.samples)),
    scope: "modes",
    setting: "maxTokens",
    direction: "increase",
    cause: "Structured answers are cut off at the token limit, so they fail validation even after the repair round.",
    rationale:
      "Most failures are MODEL_OUTPUT_INVALID with the answer cut off at max tokens; a higher limit lets the answer finish.",
  },
  {
    id: "invalid-output-lower-temperature",
    metrics: ["error_rate", "repair_rate"],
    applies: (input) => dominantError(input) === "MODEL_OUTPUT_INVALID",
    scope: "modes",
    setting: "temperature",
    direction: "decrease",
    cause: "The model's answers often fail the answer schema even after the repair round.",
    rationale:
      "Most failures are MODEL_OUTPUT_INVALID (not cut off); a lower temperature makes answers follow the schema more closely.",
  },
  {
    id: "rate-limited-lower-concurrency",
    metrics: ["error_rate"],
    applies: (input) => dominantError(input) === "PROVIDER_RATE_LIMITED",
    scope: "engine",
    setting: "concurrency",
    direction: "decrease",
    cause: "The provider rate-limits the service: too many model calls are in flight at once.",
    rationale:
      "Most failures are PROVIDER_RATE_LIMITED; fewer concurrent model calls per tool call stay under the limit.",
  },
  {
    id: "parallel-calls-raise-concurrency",
    metrics: ["latency_p95"],
    applies: (input) => input.baseline.window.model_calls_mean > 1.5,
    scope: "engine",
    setting: "concurrency",
    direction: "increase",
    cause: "Calls of this tool make several model calls each, and they wait for one another.",
    rationale:
      "The tool averages more than 1.5 model calls per call; running more of its independent calls at once shortens the critical path.",
  },
  {
    id: "slow-thinking-lower-budget",
    metrics: ["latency_p95"],
    applies: () => true,
    scope: "modes",
    setting: "thinkingBudget",
    direction: "decrease",
    cause: "Extended thinking takes a large part of each call's time.",
    rationale: "The mode thinks before answering; a smaller thinking budget cuts the time to the answer.",
  },
  {
    id: "low-quality-raise-budget",
    metrics: ["quality"],
    applies: () => true,
    scope: "modes",
    setting: "thinkingBudget",
    direction: "increase",
    cause: "The answers' quality fell: the model may need more room to reason.",
    rationale: "The mode uses extended thinking; a larger budget gives the model more room before it answers.",
  },
  {
    id: "low-quality-lower-temperature",
    metrics: ["quality"],
    applies: () => true,
    scope: "modes",
    setting: "temperature",
    direction: "decrease",
    cause: "The answers' quality fell and vary more than they should.",
    rationale: "A lower temperature makes the model's answers more consistent.",
  },
];

/**
 * Phase 2 without a model: the first rule that fits the trigger and whose
 * move is possible becomes the suggested action; when none is, the diagnosis
 * suggests no action and says why, and the same trigger is not revisited for
 * `noActionRevisitMs`.
 */
export function diagnoseByRules(input: AnalysisInput): DiagnosisDraft {
  const { trigger, config } = input;
  const because = input.rulesBecause ?? "the analyzer is set to rules";
  const description = `${describeTrigger(trigger)}. Failures: ${describeErrorCodes(input.baseline)}. Diagnosed by the deterministic rules (${because}).`;
  const skipped: string[] = [];
  for (const rule of rules) {
    if (!rule.metrics.includes(trigger.metric) || !rule.applies(input)) continue;
    const scopes = rule.scope === "engine" ? [engineScope] : input.modes;
    if (scopes.length === 0) skipped.push(`${rule.id}: no mode of ${trigger.tool} is known yet`);
    for (const scope of scopes) {
      const label = targetLabel(scope, rule.setting);
      const target = input.targets.find((option) => option.scope === scope && option.setting === rule.setting);
      if (!target) {
        skipped.push(
          `${rule.id}: ${label} is not adjustable (not allowlisted${rule.setting === "thinkingBudget" ? ", or the mode runs without extended thinking" : ""}, or another action on it is being measured)`,
        );
        continue;
      }
      const lesson = ruledOutBy(input.lessons, scope, rule.setting, rule.direction);
      if (lesson) {
        skipped.push(`${rule.id}: a lesson rules out moving ${label} that way (${lesson.verdict}: ${lesson.text})`);
        continue;
      }
      const steps = stepsWithinBounds(
        target.entry,
        target.current,
        rule.direction,
        trigger.severity === "critical" ? 2 : 1,
      );
      if (steps === 0) {
        skipped.push(
          `${rule.id}: ${label} is already at its ${rule.direction === "increase" ? "maximum" : "minimum"} (${target.current})`,
        );
        continue;
      }
      const to = stepValue(target.entry, target.current, rule.direction, steps);
      return {
        description,
        suspected_cause: rule.cause,
        action: {
          kind: "adjust",
          scope,
          setting: rule.setting,
          direction: rule.direction,
          steps,
          from: target.current,
          to,
          previous_override: target.override,
          previous_action_id: target.override_action_id,
        },
        rationale: `Rule ${rule.id}: ${rule.rationale} ${label} ${target.current} → ${to} (${steps} step${steps === 1 ? "" : "s"} of ${target.entry.step}, ${trigger.severity}).`,
        analyzer: "rules",
        rule: rule.id,
      };
    }
  }
  const reason =
    skipped.length > 0
      ? `No rule's move is possible: ${skipped.join("; ")}.`
      : `No rule covers ${trigger.metric} with these failures (${describeErrorCodes(input.baseline)}); nothing in the allowlist is known to fix it.`;
  return {
    description,
    suspected_cause: null,
    action: {
      kind: "none",
      reason,
      revisit_after: new Date(input.now.getTime() + config.analyzer.noActionRevisitMs).toISOString(),
    },
    rationale: reason,
    analyzer: "rules",
    rule: "no-rule",
  };
}

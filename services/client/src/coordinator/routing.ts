import type { QueryAnalysis } from "./heuristics.ts";
import type { CoordinatorPolicy } from "./policy.ts";

/** How a query is handled (§1.3.1): standard only, standard first with escalation, or straight to reasoning. */
export type Route = "standard" | "tiered" | "direct";

/**
 * Why the gates let a query through or not. `not_checked`: the standard approach answered first (tiered) and
 * stood, so the server was never asked. A gate that timed out names its phase and the deadline it had.
 */
export type GateResult =
  | { passed: true }
  | {
      passed: false;
      gate: "disabled" | "unhealthy" | "capability";
      detail: string;
      phase?: "health_check" | "capabilities";
      deadlineMs?: number;
    }
  | { passed: "not_checked"; detail: string };

export interface RouteDecision {
  route: Route;
  /** Why this route. */
  reason: string;
}

/**
 * The route for a query that passed the gates: a score at or above
 * `direct` goes straight to reasoning (when `allowDirect`); at or above
 * `escalate`, the standard approach goes first and escalates on a weak
 * answer (or straight to reasoning when `tiered` is off); below it, the
 * standard approach only. A host task type that always reasons goes direct;
 * small talk stays standard (a refusal of "thanks" is no reason to reason).
 */
export function decideRoute(analysis: QueryAnalysis, policy: CoordinatorPolicy): RouteDecision {
  const { direct, escalate } = policy.thresholds;
  if (analysis.forced) return { route: "direct", reason: "the task type always uses reasoning" };
  if (analysis.smallTalk) return { route: "standard", reason: "small talk: standard processing" };
  if (analysis.score >= direct && policy.allowDirect)
    return { route: "direct", reason: `strong signal: score ${analysis.score} >= ${direct}` };
  if (analysis.score >= escalate) {
    return policy.tiered
      ? {
          route: "tiered",
          reason: `score ${analysis.score} >= ${escalate}: standard first, escalating on a weak answer`,
        }
      : { route: "direct", reason: `score ${analysis.score} >= ${escalate} and tiered escalation is off` };
  }
  return { route: "standard", reason: `score ${analysis.score} < ${escalate}: standard processing` };
}

/** What the host's standard processing answered. */
export interface StandardAnswer {
  text: string;
  /** The standard model's confidence in [0, 1], when it gives one. */
  confidence?: number | null | undefined;
  /** The host knows the answer is a refusal. */
  refused?: boolean | undefined;
}

export type EscalationReason = "refusal" | "low_confidence" | "empty" | "known_failure";

/** Whether a standard answer is weak enough to escalate (§1.3.1 escalation criteria), and why. */
export function shouldEscalate(
  answer: StandardAnswer,
  policy: CoordinatorPolicy,
): { escalate: boolean; reason: EscalationReason | null; detail: string } {
  const text = answer.text.trim();
  if (text === "") return { escalate: true, reason: "empty", detail: "the standard answer is empty" };
  if (answer.refused || policy.refusalPatterns.some((pattern) => pattern.test(text))) {
    return { escalate: true, reason: "refusal", detail: "the standard answer is a refusal" };
  }
  if (typeof answer.confidence === "number" && answer.confidence < policy.thresholds.standardLowConfidence) {
    return {
      escalate: true,
      reason: "low_confidence",
      detail: `standard confidence ${answer.confidence} < ${policy.thresholds.standardLowConfidence}`,
    };
  }
  const known = policy.knownFailurePatterns.find((pattern) => pattern.test(text));
  if (known)
    return { escalate: true, reason: "known_failure", detail: `matches a known failure pattern (${known.source})` };
  return { escalate: false, reason: null, detail: "the standard answer stands" };
}

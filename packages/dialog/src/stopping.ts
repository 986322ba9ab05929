import type { DialogExchangeStatus, DialogStopReason } from "@deliberate/contracts";

/** The stopping rules of a session; each budget is optional and they combine. */
export interface StoppingRules {
  maxIterations: number;
  qualityThreshold: number;
  tokenBudget: number | null;
  wallTimeBudgetSeconds: number | null;
}

/** Where a session stands after an iteration. */
export interface StoppingFacts {
  /** Iterations completed, this one included. */
  completedIterations: number;
  /** The reviewers' score of this iteration's document. */
  reviewerScore: number;
  /** Tokens of the whole session, this iteration included. */
  tokensUsed: number;
  /** Tokens this iteration spent: what the next one is expected to cost. */
  lastIterationTokens: number;
  /** Seconds since the session started. */
  elapsedSeconds: number;
  /** Seconds this iteration took: what the next one is expected to take. */
  lastIterationSeconds: number;
}

export interface StoppingDecision {
  status: DialogExchangeStatus;
  shouldContinue: boolean;
  /** Why the session stops, in a sentence (null while it continues). */
  reason: string | null;
}

/**
 * Decides after an iteration, in this order: the reviewers' score reached the threshold
 * (threshold_met); the iteration cap is reached (max_iterations); a budget is spent or the next
 * iteration, expected to cost what this one did, would pass it (budget_exhausted). Otherwise
 * in_progress. The author's self-assessment plays no part.
 */
export function decideStopping(rules: StoppingRules, facts: StoppingFacts): StoppingDecision {
  if (facts.reviewerScore >= rules.qualityThreshold) {
    return stop(
      "threshold_met",
      `the reviewers' score ${format(facts.reviewerScore)} reached the threshold ${format(rules.qualityThreshold)}`,
    );
  }
  if (facts.completedIterations >= rules.maxIterations) {
    return stop(
      "max_iterations",
      `${facts.completedIterations} of ${rules.maxIterations} iterations ran without reaching the threshold ${format(rules.qualityThreshold)}`,
    );
  }
  if (rules.tokenBudget !== null) {
    if (facts.tokensUsed >= rules.tokenBudget)
      return stop("budget_exhausted", `${facts.tokensUsed} tokens used of the ${rules.tokenBudget}-token budget`);
    if (facts.tokensUsed + facts.lastIterationTokens > rules.tokenBudget) {
      return stop(
        "budget_exhausted",
        `${facts.tokensUsed} tokens used of the ${rules.tokenBudget}-token budget; the next iteration (about ${facts.lastIterationTokens} tokens, like this one) would pass it`,
      );
    }
  }
  if (rules.wallTimeBudgetSeconds !== null) {
    if (facts.elapsedSeconds >= rules.wallTimeBudgetSeconds) {
      return stop(
        "budget_exhausted",
        `${Math.round(facts.elapsedSeconds)} s elapsed of the ${rules.wallTimeBudgetSeconds} s wall-time budget`,
      );
    }
    if (facts.elapsedSeconds + facts.lastIterationSeconds > rules.wallTimeBudgetSeconds) {
      return stop(
        "budget_exhausted",
        `${Math.round(facts.elapsedSeconds)} s elapsed of the ${rules.wallTimeBudgetSeconds} s wall-time budget; the next iteration (about ${Math.round(facts.lastIterationSeconds)} s) would pass it`,
      );
    }
  }
  return { status: "in_progress", shouldContinue: true, reason: null };
}

function stop(status: DialogStopReason, reason: string): StoppingDecision {
  return { status, shouldContinue: false, reason };
}

function format(value: number): string {
  return value.toFixed(2);
}

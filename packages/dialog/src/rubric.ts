import type { RubricCriterion } from "./presets/dialog-preset.ts";
import { roundScore } from "./score.ts";

/**
 * The combined score of one review: the weighted mean of its criterion scores,
 * computed in code (the model only scores each criterion, 0..1), to three decimals.
 */
export function combineCriteria(
  criteria: readonly RubricCriterion[],
  scores: Readonly<Record<string, number>>,
): number {
  let weighted = 0;
  let weights = 0;
  for (const criterion of criteria) {
    const score = scores[criterion.name];
    if (score === undefined) throw new Error(`No score for criterion ${criterion.name}`);
    weighted += criterion.weight * score;
    weights += criterion.weight;
  }
  return roundScore(clampUnit(weighted / weights));
}

/** Several reviewers' scores of one document: the mean of their combined scores, and the mean per criterion (three decimals). */
export function combineReviews(
  criteria: readonly RubricCriterion[],
  reviews: ReadonlyArray<{ agent: string; criteria: Readonly<Record<string, number>> }>,
): {
  score: number;
  criteria: Record<string, number>;
  reviews: Array<{ agent: string; score: number; criteria: Record<string, number> }>;
} {
  if (reviews.length === 0) throw new Error("combineReviews needs at least one review");
  const perReviewer = reviews.map((review) => ({
    agent: review.agent,
    score: combineCriteria(criteria, review.criteria),
    criteria: Object.fromEntries(Object.entries(review.criteria).map(([name, score]) => [name, roundScore(score)])),
  }));
  const meanPerCriterion: Record<string, number> = {};
  for (const criterion of criteria) {
    meanPerCriterion[criterion.name] = roundScore(
      clampUnit(reviews.reduce((sum, review) => sum + (review.criteria[criterion.name] as number), 0) / reviews.length),
    );
  }
  const score = roundScore(clampUnit(perReviewer.reduce((sum, review) => sum + review.score, 0) / perReviewer.length));
  return { score, criteria: meanPerCriterion, reviews: perReviewer };
}

/** Floating-point sums may stray a hair outside [0, 1]. */
function clampUnit(value: number): number {
  return Math.min(1, Math.max(0, value));
}

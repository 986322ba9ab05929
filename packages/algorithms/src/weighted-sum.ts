import { cell, type DecisionMatrixInput, validateDecisionMatrix } from "./decision-matrix.ts";
import { describeValue, invalidInput, requireFiniteResult } from "./invalid-input.ts";
import { type RankedOption, rankOptions } from "./ranking.ts";

/**
 * How raw scores become comparable before weighting.
 * - `min_max` (default): each criterion is rescaled to [0, 1] over the options
 *   given, so criteria in different units (price, hours, 1–10 ratings) mix.
 * - `none`: raw scores are used as given; use it only when every criterion is
 *   on the same scale.
 */
export type WeightedSumNormalization = "min_max" | "none";

/** Input of {@link weightedSum}. */
export interface WeightedSumInput extends DecisionMatrixInput {
  normalization?: WeightedSumNormalization;
}

/** Result of {@link weightedSum}. Arrays are in input order unless stated. */
export interface WeightedSumResult {
  /** Criterion weights normalised to sum 1. */
  weights: number[];
  /** `normalized_scores[i][j]`: option i on criterion j after normalisation and cost inversion (higher is better). */
  normalized_scores: number[][];
  /** Weighted total per option: `Σ_j weights[j] · normalized_scores[i][j]`. */
  totals: number[];
  /** Options best first, `score` = total; ordinal ranks, ties by input order (see {@link rankOptions}). */
  rankings: RankedOption[];
}

const normalizations: readonly WeightedSumNormalization[] = ["min_max", "none"];

/**
 * Weighted-sum model (simple additive weighting) for `reasoning_decision`
 * type `weighted`.
 *
 * With `w_j = weight_j / Σ weight`, and `min_j`, `max_j` the lowest and
 * highest score on criterion j across options:
 * - `min_max`: benefit `n_ij = (x_ij − min_j) / (max_j − min_j)`,
 *   cost `n_ij = (max_j − x_ij) / (max_j − min_j)`; a criterion on which every
 *   option scores the same gives `n_ij = 1` for all (it cannot discriminate).
 * - `none`: benefit `n_ij = x_ij`, cost `n_ij = min_j + max_j − x_ij`
 *   (the score reflected within its observed range, so the cheapest option
 *   gets the highest value on the same scale).
 *
 * `total_i = Σ_j w_j · n_ij`; higher is better. Min–max results depend on the
 * set of options compared (adding an option can change min/max), as is usual
 * for this method. Throws INVALID_INPUT naming the field on bad input, and on
 * scores so large that a total overflows (only possible with `none`).
 */
export function weightedSum(input: WeightedSumInput): WeightedSumResult {
  const normalization = input.normalization ?? "min_max";
  if (!normalizations.includes(normalization)) {
    invalidInput("normalization", `must be "min_max" or "none", got ${describeValue(normalization)}`);
  }
  const { weights, directions } = validateDecisionMatrix(input);
  const optionCount = input.options.length;
  const normalized: number[][] = Array.from({ length: optionCount }, () => new Array<number>(weights.length).fill(0));
  directions.forEach((direction, criterion) => {
    let min = Infinity;
    let max = -Infinity;
    for (let option = 0; option < optionCount; option += 1) {
      const score = cell(input.scores, option, criterion);
      if (score < min) min = score;
      if (score > max) max = score;
    }
    // Halved so that scores near ±Number.MAX_VALUE do not overflow the range (1e308 − (−1e308)).
    const halfRange = max / 2 - min / 2;
    for (let option = 0; option < optionCount; option += 1) {
      const score = cell(input.scores, option, criterion);
      let value: number;
      if (normalization === "none") value = direction === "cost" ? min + max - score : score;
      else if (halfRange === 0) value = 1;
      else value = direction === "cost" ? (max / 2 - score / 2) / halfRange : (score / 2 - min / 2) / halfRange;
      (normalized[option] as number[])[criterion] = value;
    }
  });
  const totals = normalized.map((row) =>
    row.reduce((sum, value, criterion) => sum + (weights[criterion] as number) * value, 0),
  );
  totals.forEach((total, option) =>
    requireFiniteResult(
      total,
      `scores.${option}`,
      `the weighted total of ${JSON.stringify(input.options[option])}`,
      'Use scores on a smaller scale, or normalization "min_max".',
    ),
  );
  return { weights, normalized_scores: normalized, totals, rankings: rankOptions(input.options, totals) };
}

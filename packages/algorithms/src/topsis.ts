import { cell, type DecisionMatrixInput, validateDecisionMatrix } from "./decision-matrix.ts";
import { type RankedOption, rankOptions } from "./ranking.ts";

/** Input of {@link topsis}: the shared decision matrix (criteria carry benefit/cost direction). */
export type TopsisInput = DecisionMatrixInput;

/** Result of {@link topsis}. Arrays are in input order unless stated. */
export interface TopsisResult {
  /** Criterion weights normalised to sum 1. */
  weights: number[];
  /** `v_ij = w_j · x_ij / sqrt(Σ_k x_kj²)`. */
  weighted_normalized: number[][];
  /** Per criterion: the best weighted value (max for benefit, min for cost). */
  ideal: number[];
  /** Per criterion: the worst weighted value (min for benefit, max for cost). */
  anti_ideal: number[];
  /** `S+_i`: Euclidean distance of option i from the ideal. */
  distance_to_ideal: number[];
  /** `S−_i`: Euclidean distance of option i from the anti-ideal. */
  distance_to_anti_ideal: number[];
  /** `C_i = S−_i / (S+_i + S−_i)` in [0, 1]; 1 = the ideal itself. */
  closeness: number[];
  /** Options best first, `score` = closeness; ordinal ranks, ties by input order. */
  rankings: RankedOption[];
}

/**
 * TOPSIS (Hwang & Yoon, 1981) for `reasoning_decision` type `topsis`.
 *
 * 1. Vector normalisation per criterion: `r_ij = x_ij / sqrt(Σ_k x_kj²)`
 *    (a criterion whose scores are all 0 gives `r_ij = 0`: it cannot discriminate).
 * 2. Weighting: `v_ij = w_j · r_ij` with weights normalised to sum 1.
 * 3. Ideal `A+_j` = max_i v_ij for benefit criteria, min for cost; anti-ideal
 *    `A−_j` the opposite.
 * 4. `S+_i = sqrt(Σ_j (v_ij − A+_j)²)`, `S−_i = sqrt(Σ_j (v_ij − A−_j)²)`.
 * 5. Closeness `C_i = S−_i / (S+_i + S−_i)` in [0, 1]. When `S+_i + S−_i = 0`
 *    the ideal equals the anti-ideal, i.e. every option is identical on every
 *    weighted criterion: then every option gets `C_i = 0.5` (no preference).
 *
 * Throws INVALID_INPUT naming the field on bad input.
 */
export function topsis(input: TopsisInput): TopsisResult {
  const { weights, directions } = validateDecisionMatrix(input);
  const optionCount = input.options.length;
  const weighted: number[][] = Array.from({ length: optionCount }, () => new Array<number>(weights.length).fill(0));
  const ideal: number[] = [];
  const antiIdeal: number[] = [];
  directions.forEach((direction, criterion) => {
    // Scaled by the largest magnitude so that squaring scores near ±1e308 cannot overflow.
    let largest = 0;
    for (let option = 0; option < optionCount; option += 1)
      largest = Math.max(largest, Math.abs(cell(input.scores, option, criterion)));
    let sumOfScaledSquares = 0;
    if (largest > 0)
      for (let option = 0; option < optionCount; option += 1)
        sumOfScaledSquares += (cell(input.scores, option, criterion) / largest) ** 2;
    const scaledNorm = Math.sqrt(sumOfScaledSquares);
    const weight = weights[criterion] as number;
    let min = Infinity;
    let max = -Infinity;
    for (let option = 0; option < optionCount; option += 1) {
      const value = largest === 0 ? 0 : (weight * (cell(input.scores, option, criterion) / largest)) / scaledNorm;
      (weighted[option] as number[])[criterion] = value;
      if (value < min) min = value;
      if (value > max) max = value;
    }
    ideal.push(direction === "cost" ? min : max);
    antiIdeal.push(direction === "cost" ? max : min);
  });
  const distanceToIdeal = weighted.map((row) => distance(row, ideal));
  const distanceToAntiIdeal = weighted.map((row) => distance(row, antiIdeal));
  const closeness = distanceToIdeal.map((toIdeal, option) => {
    const toAntiIdeal = distanceToAntiIdeal[option] as number;
    const total = toIdeal + toAntiIdeal;
    return total === 0 ? 0.5 : toAntiIdeal / total;
  });
  return {
    weights,
    weighted_normalized: weighted,
    ideal,
    anti_ideal: antiIdeal,
    distance_to_ideal: distanceToIdeal,
    distance_to_anti_ideal: distanceToAntiIdeal,
    closeness,
    rankings: rankOptions(input.options, closeness),
  };
}

function distance(row: readonly number[], point: readonly number[]): number {
  let sum = 0;
  row.forEach((value, index) => {
    sum += (value - (point[index] as number)) ** 2;
  });
  return Math.sqrt(sum);
}

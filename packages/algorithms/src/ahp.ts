import { DeliberateError } from "@deliberate/base";
import { describeValue, IssueList } from "./invalid-input.ts";
import { type RankedOption, rankOptions } from "./ranking.ts";

/**
 * Saaty's random consistency index RI for n = 1..15 (index n − 1): the mean
 * consistency index of random reciprocal matrices of that size.
 */
export const saatyRandomIndex: readonly number[] = [
  0, 0, 0.58, 0.9, 1.12, 1.24, 1.32, 1.41, 1.45, 1.49, 1.51, 1.48, 1.56, 1.57, 1.59,
];

/** Largest matrix {@link analyzePairwiseMatrix} accepts (the size of the RI table). */
export const maxPairwiseItems = saatyRandomIndex.length;

/** Consistency ratio above which judgements are reported as inconsistent (Saaty's 10% rule). */
export const consistencyRatioThreshold = 0.1;

/** Input of {@link analyzePairwiseMatrix}. */
export interface PairwiseMatrixInput {
  /**
   * Square matrix of Saaty 1–9 judgements: `matrix[i][j]` = how many times
   * item i is preferred to item j, in [1/9, 9]; `matrix[i][i] = 1`,
   * `matrix[j][i] = 1 / matrix[i][j]`.
   */
  matrix: readonly (readonly number[])[];
  /**
   * Accepted relative error of the reciprocal, diagonal and range checks:
   * `|matrix[i][j] · matrix[j][i] − 1| <= tolerance`. Default 0.05, which
   * accepts two-decimal entries such as 0.33 for 1/3 or 0.14 for 1/7.
   */
  reciprocal_tolerance?: number;
  /** Power iteration stops when no priority changes by more than this. Default 1e-12. */
  convergence_tolerance?: number;
  /** Power iteration gives up after this many steps (LIMIT_EXCEEDED). Default 10,000. */
  max_iterations?: number;
}

/** The judgement that disagrees most with the derived priorities. */
export interface InconsistentJudgement {
  row: number;
  column: number;
  /** The judgement given, `matrix[row][column]`. */
  value: number;
  /** The judgement the priorities imply, `priorities[row] / priorities[column]`. */
  implied: number;
}

/** Result of {@link analyzePairwiseMatrix}. */
export interface PairwiseAnalysis {
  /** Principal right eigenvector, normalised to sum 1 (one per row/item). */
  priorities: number[];
  /** Principal eigenvalue `λmax` (n for a perfectly consistent matrix). */
  lambda_max: number;
  /** `CI = (λmax − n) / (n − 1)`; 0 for n <= 2. */
  consistency_index: number;
  /** Saaty's RI for this n. */
  random_index: number;
  /** `CR = CI / RI`; 0 for n <= 2 (every such reciprocal matrix is consistent). */
  consistency_ratio: number;
  /** `CR <= 0.1`. */
  consistent: boolean;
  /** Set when `CR > 0.1`: says the judgements are inconsistent and which one to revisit. */
  warning?: string;
  /** The judgement furthest (by ratio) from what the priorities imply; absent for n = 1. */
  most_inconsistent?: InconsistentJudgement;
  /** Power-iteration steps used. */
  iterations: number;
}

/**
 * Analytic Hierarchy Process on one pairwise comparison matrix (the
 * `pairwise` type of `reasoning_decision`).
 *
 * Validates the matrix (square, 1..15 items, finite positive entries in
 * [1/9, 9], diagonal 1, reciprocal — all within `reciprocal_tolerance`), then:
 * - priorities = principal right eigenvector `w` (A·w = λmax·w, Σw = 1) by
 *   power iteration from the uniform vector: `w ← A·w / Σ(A·w)` until the
 *   largest change is below `convergence_tolerance` (the matrix is used as
 *   given; it is not symmetrised). Positive matrices converge by
 *   Perron–Frobenius; a consistent matrix converges in one step.
 * - `λmax = Σ_i (A·w)_i` (with Σw = 1), `CI = (λmax − n)/(n − 1)`,
 *   `CR = CI / RI(n)` with {@link saatyRandomIndex}; CI = CR = 0 for n <= 2.
 * - `consistent = CR <= 0.1`; otherwise `warning` explains and names the
 *   judgement whose ratio to the implied one `w_i/w_j` is largest.
 *
 * Throws INVALID_INPUT naming `matrix.i.j` (or the option) on bad input, and
 * LIMIT_EXCEEDED if power iteration does not converge within `max_iterations`.
 */
export function analyzePairwiseMatrix(input: PairwiseMatrixInput): PairwiseAnalysis {
  const issues = new IssueList();
  const tolerance = input.reciprocal_tolerance ?? 0.05;
  const convergence = input.convergence_tolerance ?? 1e-12;
  const maxIterations = input.max_iterations ?? 10_000;
  issues.inRange(tolerance, "reciprocal_tolerance", 0, 0.5);
  if (issues.finite(convergence, "convergence_tolerance") && !(convergence > 0 && convergence < 1)) {
    issues.add("convergence_tolerance", `must be between 0 and 1 (exclusive), got ${convergence}`);
  }
  issues.integer(maxIterations, "max_iterations", 1);
  issues.throwIfAny();
  const matrix = input.matrix;
  if (issues.array(matrix, "matrix", 1)) {
    if (matrix.length > maxPairwiseItems) {
      issues.add(
        "matrix",
        `has ${matrix.length} rows; at most ${maxPairwiseItems} items can be compared (Saaty's random index is tabulated to 15)`,
      );
    }
    matrix.forEach((row, i) => {
      if (!issues.array(row, `matrix.${i}`)) return;
      if (row.length !== matrix.length)
        issues.add(
          `matrix.${i}`,
          `has ${row.length} entries; the matrix must be square (${matrix.length} x ${matrix.length})`,
        );
    });
  }
  issues.throwIfAny("Give an n x n matrix of pairwise judgements, one row and one column per item.");
  const n = matrix.length;
  const low = (1 / 9) * (1 - tolerance);
  const high = 9 * (1 + tolerance);
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j < n; j += 1) {
      const value = at(matrix, i, j);
      const field = `matrix.${i}.${j}`;
      if (!issues.finite(value, field)) continue;
      if (value <= 0) issues.add(field, `must be positive, got ${value}`);
      else if (i === j && Math.abs(value - 1) > tolerance)
        issues.add(field, `is on the diagonal and must be 1, got ${value}`);
      else if (value < low || value > high)
        issues.add(field, `must be on Saaty's scale between 1/9 and 9, got ${value}`);
      else if (j > i) {
        const mirror = at(matrix, j, i);
        if (
          typeof mirror === "number" &&
          Number.isFinite(mirror) &&
          mirror > 0 &&
          Math.abs(value * mirror - 1) > tolerance
        ) {
          issues.add(
            `matrix.${j}.${i}`,
            `must be the reciprocal of matrix.${i}.${j} (1/${value} = ${1 / value}), got ${mirror}`,
          );
        }
      }
    }
  }
  issues.throwIfAny(
    "Fill the matrix with Saaty 1–9 judgements: matrix[i][j] = how much i beats j, matrix[j][i] = 1/matrix[i][j], 1 on the diagonal.",
  );

  let priorities: number[] = new Array<number>(n).fill(1 / n);
  let product = multiply(matrix, priorities);
  let iterations = 0;
  for (;;) {
    if (iterations >= maxIterations) {
      throw new DeliberateError({
        code: "LIMIT_EXCEEDED",
        message: `Power iteration did not converge to ${convergence} within ${maxIterations} iterations.`,
        hint: "Raise max_iterations or convergence_tolerance.",
      });
    }
    iterations += 1;
    const total = sum(product);
    const next = product.map((value) => value / total);
    const change = Math.max(...next.map((value, index) => Math.abs(value - (priorities[index] as number))));
    priorities = next;
    product = multiply(matrix, priorities);
    if (change <= convergence) break;
  }
  const lambdaMax = sum(product);
  const randomIndex = saatyRandomIndex[n - 1] as number;
  const consistencyIndex = n <= 2 ? 0 : (lambdaMax - n) / (n - 1);
  const consistencyRatio = n <= 2 ? 0 : consistencyIndex / randomIndex;
  const consistent = consistencyRatio <= consistencyThresholdWithNoise;
  const mostInconsistent = findMostInconsistent(matrix, priorities);
  const result: PairwiseAnalysis = {
    priorities,
    lambda_max: lambdaMax,
    consistency_index: consistencyIndex,
    random_index: randomIndex,
    consistency_ratio: consistencyRatio,
    consistent,
    iterations,
  };
  if (mostInconsistent !== undefined) result.most_inconsistent = mostInconsistent;
  if (!consistent && mostInconsistent !== undefined) {
    result.warning = inconsistencyWarning(consistencyRatio, mostInconsistent, (index) => `item ${index}`);
  }
  return result;
}

/** `CR <= 0.1` compared after rounding away floating-point noise, so a CR printed as 0.1 counts as consistent. */
const consistencyThresholdWithNoise = consistencyRatioThreshold + 1e-12;

/** One pairwise judgement: `a` is `value` times as important as (preferred to) `b`, on Saaty's 1/9..9 scale. */
export interface PairwiseJudgement {
  a: string;
  b: string;
  value: number;
}

/** Input of {@link buildPairwiseMatrix} and {@link analyzePairwiseJudgements}. */
export interface PairwiseJudgementsInput {
  /** Names of the items compared (options or criteria), in the order of the matrix rows. */
  items: readonly string[];
  /** One judgement per unordered pair of distinct items, in either orientation. */
  judgements: readonly PairwiseJudgement[];
}

/**
 * Builds the full reciprocal matrix from one judgement per pair:
 * `matrix[a][b] = value`, `matrix[b][a] = 1 / value`, 1 on the diagonal.
 *
 * Throws INVALID_INPUT for unknown or empty item names, duplicate items,
 * self-comparisons, values outside [1/9, 9], a pair judged twice (in either
 * orientation), and — listed by name — every pair left without a judgement.
 */
export function buildPairwiseMatrix(input: PairwiseJudgementsInput): number[][] {
  const issues = new IssueList();
  let indexOf = new Map<string, number>();
  if (issues.array(input.items, "items", 1)) indexOf = issues.uniqueNames(input.items, (index) => `items.${index}`);
  if (issues.array(input.judgements, "judgements")) {
    const judged = new Map<string, number>();
    input.judgements.forEach((judgement, index) => {
      const field = `judgements.${index}`;
      const a = judgement?.a;
      const b = judgement?.b;
      const value = judgement?.value;
      const aIndex = typeof a === "string" ? indexOf.get(a) : undefined;
      const bIndex = typeof b === "string" ? indexOf.get(b) : undefined;
      if (aIndex === undefined) issues.add(`${field}.a`, `must be one of items, got ${describeValue(a)}`);
      if (bIndex === undefined) issues.add(`${field}.b`, `must be one of items, got ${describeValue(b)}`);
      if (issues.finite(value, `${field}.value`) && !(value >= 1 / 9 - 1e-12 && value <= 9)) {
        issues.add(`${field}.value`, `must be on Saaty's scale between 1/9 and 9, got ${value}`);
      }
      if (aIndex === undefined || bIndex === undefined) return;
      if (aIndex === bIndex) {
        issues.add(
          field,
          `compares ${JSON.stringify(a)} with itself; self-comparisons are implicitly 1, leave them out`,
        );
        return;
      }
      const key = pairKey(aIndex, bIndex);
      const first = judged.get(key);
      if (first !== undefined)
        issues.add(
          field,
          `judges ${JSON.stringify(a)} vs ${JSON.stringify(b)} again (first in judgements.${first}); give each pair once`,
        );
      else judged.set(key, index);
    });
    if (issues.isEmpty) {
      const items = input.items;
      const missing: string[] = [];
      for (let i = 0; i < items.length; i += 1) {
        for (let j = i + 1; j < items.length; j += 1) {
          if (!judged.has(pairKey(i, j))) missing.push(`${JSON.stringify(items[i])} vs ${JSON.stringify(items[j])}`);
        }
      }
      if (missing.length > 0) {
        const shown = missing.slice(0, 20).join(", ");
        issues.add(
          "judgements",
          `missing ${missing.length} pair${missing.length === 1 ? "" : "s"}: ${shown}${missing.length > 20 ? ", …" : ""}`,
        );
      }
    }
  }
  issues.throwIfAny("Give exactly one judgement {a, b, value} for every pair of distinct items.");
  const n = input.items.length;
  const matrix = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (const judgement of input.judgements) {
    const a = indexOf.get(judgement.a) as number;
    const b = indexOf.get(judgement.b) as number;
    (matrix[a] as number[])[b] = judgement.value;
    (matrix[b] as number[])[a] = 1 / judgement.value;
  }
  return matrix;
}

/** Result of {@link analyzePairwiseJudgements}: the matrix analysis plus named priorities. */
export interface PairwiseJudgementsAnalysis extends PairwiseAnalysis {
  matrix: number[][];
  /** Items best first by priority; ordinal ranks, ties by input order. */
  rankings: RankedOption[];
}

/**
 * {@link buildPairwiseMatrix} then {@link analyzePairwiseMatrix}: priorities
 * per named item, ranked, with the inconsistency warning naming items.
 */
export function analyzePairwiseJudgements(
  input: PairwiseJudgementsInput & Omit<PairwiseMatrixInput, "matrix">,
): PairwiseJudgementsAnalysis {
  const matrix = buildPairwiseMatrix(input);
  const { items: _items, judgements: _judgements, ...options } = input;
  const analysis = analyzePairwiseMatrix({ ...options, matrix });
  if (analysis.warning !== undefined && analysis.most_inconsistent !== undefined) {
    analysis.warning = inconsistencyWarning(analysis.consistency_ratio, analysis.most_inconsistent, (index) =>
      JSON.stringify(input.items[index]),
    );
  }
  return { ...analysis, matrix, rankings: rankOptions(input.items, analysis.priorities) };
}

function inconsistencyWarning(
  ratio: number,
  judgement: InconsistentJudgement,
  nameOf: (index: number) => string,
): string {
  return (
    `Consistency ratio ${ratio.toFixed(3)} exceeds ${consistencyRatioThreshold}: the pairwise judgements contradict each other, ` +
    `so the priorities are unreliable. Revisit ${nameOf(judgement.row)} vs ${nameOf(judgement.column)} first ` +
    `(judged ${round(judgement.value)}, the other judgements imply about ${round(judgement.implied)}).`
  );
}

function findMostInconsistent(
  matrix: readonly (readonly number[])[],
  priorities: readonly number[],
): InconsistentJudgement | undefined {
  let best: InconsistentJudgement | undefined;
  let bestDeviation = -1;
  for (let i = 0; i < matrix.length; i += 1) {
    for (let j = i + 1; j < matrix.length; j += 1) {
      const value = at(matrix, i, j);
      const implied = (priorities[i] as number) / (priorities[j] as number);
      const deviation = Math.abs(Math.log(value / implied));
      if (deviation > bestDeviation) {
        bestDeviation = deviation;
        best = { row: i, column: j, value, implied };
      }
    }
  }
  return best;
}

function pairKey(a: number, b: number): string {
  return a < b ? `${a},${b}` : `${b},${a}`;
}

function at(matrix: readonly (readonly number[])[], row: number, column: number): number {
  return (matrix[row] as readonly number[])[column] as number;
}

function multiply(matrix: readonly (readonly number[])[], vector: readonly number[]): number[] {
  return matrix.map((row) => row.reduce((total, value, column) => total + value * (vector[column] as number), 0));
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function round(value: number): string {
  return String(Number(value.toPrecision(3)));
}

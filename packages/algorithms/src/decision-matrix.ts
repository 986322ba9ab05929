import { normalizeWeights } from "./criterion-weights.ts";
import { describeValue, IssueList } from "./invalid-input.ts";

/** Whether more is better (`benefit`) or less is better (`cost`) on a criterion. */
export type CriterionDirection = "benefit" | "cost";

/** A decision criterion as in `reasoning_decision.criteria` (spec 3.9), plus its direction. */
export interface DecisionCriterion {
  name: string;
  /** Relative importance, 0 or more; weights are normalised to sum 1. */
  weight: number;
  /** Defaults to `benefit`. */
  direction?: CriterionDirection;
}

/**
 * The input shared by the scoring methods (weighted sum, TOPSIS): options,
 * criteria and one score per option per criterion. Field names follow
 * `reasoning_decision` (spec 3.9); `scores` is the option x criterion matrix
 * (`scores[i][j]` = option i on criterion j, any finite number).
 */
export interface DecisionMatrixInput {
  options: readonly string[];
  criteria: readonly DecisionCriterion[];
  scores: readonly (readonly number[])[];
}

/** A validated decision matrix: normalised weights and resolved directions. */
export interface ValidatedDecisionMatrix {
  weights: number[];
  directions: CriterionDirection[];
}

const directions: readonly CriterionDirection[] = ["benefit", "cost"];

/**
 * Validates a decision matrix and normalises its criterion weights to sum 1.
 * Throws INVALID_INPUT listing every problem: missing or duplicate option and
 * criterion names, negative / non-finite / all-zero weights, unknown
 * directions, a `scores` matrix whose shape is not options x criteria, and
 * non-finite scores.
 */
export function validateDecisionMatrix(input: DecisionMatrixInput): ValidatedDecisionMatrix {
  const issues = new IssueList();
  const optionsOk = issues.array(input.options, "options", 1);
  const criteriaOk = issues.array(input.criteria, "criteria", 1);
  if (optionsOk) issues.uniqueNames(input.options, (index) => `options.${index}`);
  if (criteriaOk) {
    issues.uniqueNames(
      input.criteria.map((criterion) => criterion?.name),
      (index) => `criteria.${index}.name`,
    );
    input.criteria.forEach((criterion, index) => {
      const weight = criterion?.weight;
      if (issues.finite(weight, `criteria.${index}.weight`) && weight < 0) {
        issues.add(`criteria.${index}.weight`, `must be 0 or more, got ${weight}`);
      }
      const direction = criterion?.direction;
      if (direction !== undefined && !directions.includes(direction)) {
        issues.add(`criteria.${index}.direction`, `must be "benefit" or "cost", got ${describeValue(direction)}`);
      }
    });
  }
  if (issues.array(input.scores, "scores") && optionsOk && criteriaOk) {
    if (input.scores.length !== input.options.length) {
      issues.add("scores", `needs one row per option (${input.options.length}), got ${input.scores.length}`);
    }
    input.scores.forEach((row, optionIndex) => {
      if (!issues.array(row, `scores.${optionIndex}`)) return;
      if (row.length !== input.criteria.length) {
        issues.add(
          `scores.${optionIndex}`,
          `needs one score per criterion (${input.criteria.length}), got ${row.length}`,
        );
        return;
      }
      row.forEach((score, criterionIndex) => issues.finite(score, `scores.${optionIndex}.${criterionIndex}`));
    });
  }
  issues.throwIfAny("Give scores as a matrix with one row per option and one finite number per criterion.");
  const weights = normalizeWeights(
    input.criteria.map((criterion) => criterion.weight),
    { field: (index) => `criteria.${index}.weight`, totalField: "criteria" },
  );
  return { weights, directions: input.criteria.map((criterion) => criterion.direction ?? "benefit") };
}

/** Reads `matrix[row][column]` of a validated matrix. @internal */
export function cell(matrix: readonly (readonly number[])[], row: number, column: number): number {
  return (matrix[row] as readonly number[])[column] as number;
}

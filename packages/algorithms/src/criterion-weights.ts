import { IssueList } from "./invalid-input.ts";

/** Options of {@link normalizeWeights}. */
export interface NormalizeWeightsOptions {
  /** Field name reported for weight `index`; defaults to `weights.<index>`. */
  field?: (index: number) => string;
  /** Field name reported when every weight is 0; defaults to `weights`. */
  totalField?: string;
}

/**
 * Scales non-negative weights so they sum to 1: `w_i / Σ w`.
 *
 * The result is invariant to multiplying every weight by the same positive
 * number, so callers may give weights on any scale (0–1, percentages, points).
 * Throws INVALID_INPUT naming the field for a non-finite or negative weight,
 * and for an empty list or all-zero weights (no basis for a comparison).
 */
export function normalizeWeights(weights: readonly number[], options: NormalizeWeightsOptions = {}): number[] {
  const fieldOf = options.field ?? ((index: number) => `weights.${index}`);
  const totalField = options.totalField ?? "weights";
  const issues = new IssueList();
  if (!issues.array(weights, totalField, 1)) issues.throwIfAny();
  weights.forEach((weight, index) => {
    if (issues.finite(weight, fieldOf(index)) && weight < 0)
      issues.add(fieldOf(index), `must be 0 or more, got ${weight}`);
  });
  issues.throwIfAny("Weights are relative importances: give each a number of 0 or more.");
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total === 0) {
    issues.add(totalField, "every weight is 0; give at least one a positive weight");
    issues.throwIfAny();
  }
  return weights.map((weight) => weight / total);
}

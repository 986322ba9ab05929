import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { multiHypothesisUpdate } from "./bayes.ts";
import { expectInvalid } from "./test-support.ts";
import { topsis } from "./topsis.ts";
import { weightedSum } from "./weighted-sum.ts";

const huge = {
  options: ["A", "B"],
  criteria: [
    { name: "x", weight: 1 },
    { name: "y", weight: 1 },
  ],
  scores: [
    [1e308, 2],
    [-1e308, 4],
  ],
};

describe("scores near the largest double", () => {
  it("weighted min-max totals stay finite (the range is computed without overflow)", () => {
    const result = weightedSum(huge);
    expect(result.totals.every(Number.isFinite)).toBe(true);
    expect(result.normalized_scores).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it("weighted totals that overflow without normalisation (a reflected cost) are INVALID_INPUT naming the option's scores", () => {
    const criteria = [{ name: "x", weight: 1, direction: "cost" as const }];
    const error = expectInvalid(
      () => weightedSum({ options: ["A", "B"], criteria, scores: [[1.5e308], [1.4e308]], normalization: "none" }),
      "scores.0",
    );
    expect(error.message).toMatch(/overflow/);
  });

  it("TOPSIS stays finite for any finite scores", () => {
    expect(topsis(huge).closeness.every(Number.isFinite)).toBe(true);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
          ),
          { minLength: 2, maxLength: 5 },
        ),
        (rows) => {
          const result = topsis({
            options: rows.map((_, index) => `o${index}`),
            criteria: huge.criteria,
            scores: rows,
          });
          return result.closeness.every(Number.isFinite) && result.weighted_normalized.flat().every(Number.isFinite);
        },
      ),
    );
  });

  it("weighted min-max stays finite for any finite scores", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
          ),
          { minLength: 2, maxLength: 5 },
        ),
        (rows) => {
          const result = weightedSum({
            options: rows.map((_, index) => `o${index}`),
            criteria: huge.criteria,
            scores: rows,
          });
          return result.totals.every((total) => Number.isFinite(total) && total >= -1e-9 && total <= 1 + 1e-9);
        },
      ),
    );
  });

  it("priors whose sum overflows are INVALID_INPUT naming priors", () => {
    expectInvalid(
      () =>
        multiHypothesisUpdate({
          hypotheses: ["a", "b"],
          priors: [1e308, 1e308],
          evidence: [{ likelihoods: [0.5, 0.5] }],
        }),
      "priors",
    );
  });
});

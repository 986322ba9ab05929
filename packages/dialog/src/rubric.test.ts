import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RubricCriterion } from "./presets/dialog-preset.ts";
import { builtinPresets } from "./presets/builtin-presets.ts";
import { combineCriteria, combineReviews } from "./rubric.ts";

const presetArbitrary = fc.constantFrom(...builtinPresets);
const scoresFor = (criteria: readonly RubricCriterion[]) =>
  fc
    .tuple(...criteria.map(() => fc.double({ min: 0, max: 1, noNaN: true })))
    .map((values) => Object.fromEntries(criteria.map((criterion, index) => [criterion.name, values[index] as number])));

describe("rubric scores combined in code", () => {
  it("a combined score lies between the lowest and highest criterion score", () => {
    fc.assert(
      fc.property(
        presetArbitrary.chain((preset) => fc.tuple(fc.constant(preset), scoresFor(preset.criteria))),
        ([preset, scores]) => {
          const combined = combineCriteria(preset.criteria, scores);
          const values = Object.values(scores);
          expect(combined).toBeGreaterThanOrEqual(Math.min(...values) - 5e-4);
          expect(combined).toBeLessThanOrEqual(Math.max(...values) + 5e-4);
          expect(Math.round(combined * 1000) / 1000).toBe(combined);
        },
      ),
    );
  });

  it("equal criterion scores combine to that score, and raising one criterion never lowers the total", () => {
    fc.assert(
      fc.property(
        presetArbitrary.chain((preset) =>
          fc.tuple(
            fc.constant(preset),
            scoresFor(preset.criteria),
            fc.nat(preset.criteria.length - 1),
            fc.double({ min: 0, max: 1, noNaN: true }),
          ),
        ),
        ([preset, scores, index, raise]) => {
          const same = Object.fromEntries(preset.criteria.map((criterion) => [criterion.name, raise]));
          expect(combineCriteria(preset.criteria, same)).toBeCloseTo(raise, 3);
          const name = (preset.criteria[index] as RubricCriterion).name;
          const higher = { ...scores, [name]: Math.max(scores[name] as number, raise) };
          expect(combineCriteria(preset.criteria, higher)).toBeGreaterThanOrEqual(
            combineCriteria(preset.criteria, scores),
          );
        },
      ),
    );
  });

  it("weights matter: the heaviest criterion moves the score most", () => {
    const criteria = [
      { name: "a", weight: 0.7, description: "" },
      { name: "b", weight: 0.3, description: "" },
    ];
    expect(combineCriteria(criteria, { a: 1, b: 0 })).toBeCloseTo(0.7, 12);
    expect(combineCriteria(criteria, { a: 0, b: 1 })).toBeCloseTo(0.3, 12);
  });

  it("several reviewers: the mean of their combined scores, and the mean per criterion", () => {
    const criteria = [
      { name: "a", weight: 0.5, description: "" },
      { name: "b", weight: 0.5, description: "" },
    ];
    const combined = combineReviews(criteria, [
      { agent: "x", criteria: { a: 1, b: 0.6 } },
      { agent: "y", criteria: { a: 0.4, b: 0.2 } },
    ]);
    expect(combined.score).toBeCloseTo(0.55, 12);
    expect(combined.criteria["a"]).toBeCloseTo(0.7, 12);
    expect(combined.criteria["b"]).toBeCloseTo(0.4, 12);
    // Three decimals: no floating-point tails such as 0.30000000000000004.
    expect(combined.reviews.map((review) => review.score)).toEqual([0.8, 0.3]);
  });

  it("a missing criterion score is a bug, not a silent default", () => {
    expect(() => combineCriteria([{ name: "a", weight: 1, description: "" }], {})).toThrow("No score for criterion a");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import { normalizeWeights } from "./criterion-weights.ts";
import { rankOptions } from "./ranking.ts";
import { weightedSum, type WeightedSumInput } from "./weighted-sum.ts";

const laptops: WeightedSumInput = {
  options: ["A", "B", "C"],
  criteria: [
    { name: "quality", weight: 2 },
    { name: "price", weight: 1, direction: "cost" },
  ],
  scores: [
    [8, 300],
    [6, 200],
    [9, 400],
  ],
};

describe("weightedSum", () => {
  it("normalises min-max per criterion, inverts cost criteria and ranks (hand-worked)", () => {
    const result = weightedSum(laptops);
    expect(result.weights).toEqual([2 / 3, 1 / 3]);
    // quality: min 6, max 9 -> A 2/3, B 0, C 1; price (cost): min 200, max 400 -> A 0.5, B 1, C 0
    expect(result.normalized_scores[0]?.[0]).toBeCloseTo(2 / 3, 12);
    expect(result.normalized_scores[0]?.[1]).toBeCloseTo(0.5, 12);
    expect(result.normalized_scores[1]).toEqual([0, 1]);
    expect(result.normalized_scores[2]).toEqual([1, 0]);
    expect(result.totals[0]).toBeCloseTo(11 / 18, 12);
    expect(result.totals[1]).toBeCloseTo(1 / 3, 12);
    expect(result.totals[2]).toBeCloseTo(2 / 3, 12);
    expect(result.rankings.map((ranked) => [ranked.option, ranked.rank, ranked.index])).toEqual([
      ["C", 1, 2],
      ["A", 2, 0],
      ["B", 3, 1],
    ]);
  });

  it("uses raw scores with normalization none, reflecting cost within the observed range", () => {
    const result = weightedSum({
      options: ["X", "Y"],
      criteria: [
        { name: "fit", weight: 1 },
        { name: "effort", weight: 1, direction: "cost" },
      ],
      scores: [
        [7, 2],
        [5, 8],
      ],
      normalization: "none",
    });
    // effort: min 2 + max 8 - x -> X 8, Y 2
    expect(result.normalized_scores).toEqual([
      [7, 8],
      [5, 2],
    ]);
    expect(result.totals).toEqual([7.5, 3.5]);
  });

  it("gives every option 1 on a criterion where all score the same", () => {
    const result = weightedSum({ options: ["a", "b"], criteria: [{ name: "c", weight: 1 }], scores: [[4], [4]] });
    expect(result.normalized_scores).toEqual([[1], [1]]);
  });

  it("breaks equal totals by input order and marks them tied", () => {
    const result = weightedSum({
      options: ["first", "second", "third"],
      criteria: [{ name: "c", weight: 1 }],
      scores: [[1], [1], [0]],
    });
    expect(result.rankings.map((ranked) => [ranked.option, ranked.rank, ranked.tied])).toEqual([
      ["first", 1, true],
      ["second", 2, true],
      ["third", 3, false],
    ]);
  });

  it("does not let floating-point noise decide a rank", () => {
    const ranked = rankOptions(["exact", "noisy"], [0.3, 0.1 + 0.2]);
    expect(ranked.map((entry) => entry.option)).toEqual(["exact", "noisy"]);
    expect(ranked.every((entry) => entry.tied)).toBe(true);
  });

  it.each([
    ["options", { ...laptops, options: [] }],
    ["options.1", { ...laptops, options: ["A", "A", "C"] }],
    ["options.2", { ...laptops, options: ["A", "B", ""] }],
    ["criteria", { ...laptops, criteria: [] }],
    [
      "criteria.1.name",
      {
        ...laptops,
        criteria: [
          { name: "q", weight: 1 },
          { name: "q", weight: 1 },
        ],
      },
    ],
    [
      "criteria.0.weight",
      {
        ...laptops,
        criteria: [
          { name: "q", weight: -1 },
          { name: "p", weight: 1 },
        ],
      },
    ],
    [
      "criteria.1.weight",
      {
        ...laptops,
        criteria: [
          { name: "q", weight: 1 },
          { name: "p", weight: Number.NaN },
        ],
      },
    ],
    [
      "criteria",
      {
        ...laptops,
        criteria: [
          { name: "q", weight: 0 },
          { name: "p", weight: 0 },
        ],
      },
    ],
    [
      "criteria.1.direction",
      {
        ...laptops,
        criteria: [
          { name: "q", weight: 1 },
          { name: "p", weight: 1, direction: "lower" as "cost" },
        ],
      },
    ],
    ["scores", { ...laptops, scores: [[1, 2]] }],
    ["scores", { ...laptops, scores: "none" as unknown as number[][] }],
    ["scores.0", { ...laptops, scores: [7, [1, 2], [3, 4]] as unknown as number[][] }],
    [
      "criteria.0.name",
      {
        ...laptops,
        criteria: [
          { name: "", weight: 1 },
          { name: "p", weight: 1 },
        ],
      },
    ],
    ["scores.1", { ...laptops, scores: [[1, 2], [1], [3, 4]] }],
    [
      "scores.2.1",
      {
        ...laptops,
        scores: [
          [1, 2],
          [1, 2],
          [3, Number.POSITIVE_INFINITY],
        ],
      },
    ],
    ["normalization", { ...laptops, normalization: "z_score" as "none" }],
  ])("rejects bad input naming %s", (field, input) => {
    expectInvalid(() => weightedSum(input as WeightedSumInput), field);
  });

  it("ranks an option that dominates every other first", () => {
    fc.assert(
      fc.property(decisionProblem(), ({ input, dominant }) => {
        expect(weightedSum(input).rankings[0]?.index).toBe(dominant);
      }),
    );
  });

  it("is invariant to scaling all weights", () => {
    fc.assert(
      fc.property(decisionProblem(), fc.double({ min: 1e-3, max: 1e3, noNaN: true }), ({ input }, factor) => {
        const scaled = {
          ...input,
          criteria: input.criteria.map((criterion) => ({ ...criterion, weight: criterion.weight * factor })),
        };
        const base = weightedSum(input);
        const other = weightedSum(scaled);
        other.weights.forEach((weight, index) => expect(weight).toBeCloseTo(base.weights[index] as number, 12));
        other.totals.forEach((total, index) => expect(total).toBeCloseTo(base.totals[index] as number, 12));
      }),
    );
  });
});

describe("normalizeWeights", () => {
  it("scales weights to sum 1", () => {
    expect(normalizeWeights([1, 3])).toEqual([0.25, 0.75]);
  });

  it("names the offending weight or the list", () => {
    expectInvalid(() => normalizeWeights([1, -2]), "weights.1");
    expectInvalid(() => normalizeWeights([0, 0]), "weights");
    expectInvalid(() => normalizeWeights([]), "weights");
    expectInvalid(() => normalizeWeights([1, Number.NaN], { field: (index) => `w[${index}]` }), "w[1]");
  });
});

/**
 * A random decision problem with one dominant option: at least as good on
 * every criterion (strictly better on each).
 */
function decisionProblem() {
  return fc
    .record({
      optionCount: fc.integer({ min: 2, max: 6 }),
      directions: fc.array(fc.constantFrom("benefit" as const, "cost" as const), { minLength: 1, maxLength: 5 }),
      seed: fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 30, maxLength: 30 }),
      weights: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 5, maxLength: 5 }),
      dominantSeed: fc.nat(),
    })
    .map(({ optionCount, directions, seed, weights, dominantSeed }) => {
      const dominant = dominantSeed % optionCount;
      const scores = Array.from({ length: optionCount }, (_, option) =>
        directions.map((_, criterion) => seed[(option * 5 + criterion) % 30] as number),
      );
      directions.forEach((direction, criterion) => {
        const column = scores.map((row) => row[criterion] as number);
        (scores[dominant] as number[])[criterion] =
          direction === "benefit" ? Math.max(...column) + 1 : Math.max(1, Math.min(...column) - 1) / 2;
      });
      const input: WeightedSumInput = {
        options: scores.map((_, index) => `option ${index}`),
        criteria: directions.map((direction, index) => ({
          name: `criterion ${index}`,
          weight: weights[index] as number,
          direction,
        })),
        scores,
      };
      return { input, dominant };
    });
}

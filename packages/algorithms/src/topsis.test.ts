import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import { topsis, type TopsisInput } from "./topsis.ts";

describe("topsis", () => {
  it("reproduces the weighted normalised matrix of Sennaroğlu's textbook example", () => {
    // Decision Analysis lecture (B. Sennaroğlu): weights 0.714 / 0.286 from AHP, three alternatives.
    const result = topsis({
      options: ["A1", "A2", "A3"],
      criteria: [
        { name: "P", weight: 0.714 },
        { name: "L", weight: 0.286 },
      ],
      scores: [
        [17, 12],
        [10, 9],
        [8, 6],
      ],
    });
    const published = [
      [0.5703, 0.2124],
      [0.3355, 0.1593],
      [0.2684, 0.1062],
    ];
    published.forEach((row, option) =>
      row.forEach((value, criterion) => expect(result.weighted_normalized[option]?.[criterion]).toBeCloseTo(value, 4)),
    );
    // A1 is the ideal on both criteria, A3 the anti-ideal; A2 by hand: S+ = 0.24076, S- = 0.08557.
    expect(result.closeness[0]).toBe(1);
    expect(result.closeness[2]).toBe(0);
    expect(result.distance_to_ideal[1]).toBeCloseTo(0.240757, 6);
    expect(result.distance_to_anti_ideal[1]).toBeCloseTo(0.085569, 6);
    expect(result.closeness[1]).toBeCloseTo(0.262219, 6);
    expect(result.rankings.map((ranked) => ranked.option)).toEqual(["A1", "A2", "A3"]);
  });

  it("reproduces the phone-selection tutorial example with a cost criterion", () => {
    // Widely used tutorial: price is a cost, storage / camera / looks are benefits, equal weights.
    const result = topsis({
      options: ["P1", "P2", "P3", "P4", "P5"],
      criteria: [
        { name: "price", weight: 0.25, direction: "cost" },
        { name: "storage", weight: 0.25 },
        { name: "camera", weight: 0.25 },
        { name: "looks", weight: 0.25 },
      ],
      scores: [
        [250, 16, 12, 5],
        [200, 16, 8, 3],
        [300, 32, 16, 4],
        [275, 32, 8, 4],
        [225, 16, 16, 2],
      ],
    });
    const expected = [0.534277, 0.308368, 0.691632, 0.534737, 0.401046];
    expected.forEach((value, option) => expect(result.closeness[option]).toBeCloseTo(value, 6));
    expect(result.ideal[0]).toBeCloseTo(0.0885615, 6); // lowest weighted price
    expect(result.anti_ideal[0]).toBeCloseTo(0.1328422, 6);
    expect(result.rankings.map((ranked) => [ranked.option, ranked.rank])).toEqual([
      ["P3", 1],
      ["P4", 2],
      ["P1", 3],
      ["P5", 4],
      ["P2", 5],
    ]);
  });

  it("gives every option closeness 0.5 when all options are identical", () => {
    const result = topsis({
      options: ["a", "b", "c"],
      criteria: [
        { name: "x", weight: 1 },
        { name: "y", weight: 2, direction: "cost" },
      ],
      scores: [
        [3, 4],
        [3, 4],
        [3, 4],
      ],
    });
    expect(result.closeness).toEqual([0.5, 0.5, 0.5]);
    expect(result.rankings.map((ranked) => ranked.option)).toEqual(["a", "b", "c"]);
  });

  it("treats an all-zero criterion as non-discriminating", () => {
    const result = topsis({
      options: ["a", "b"],
      criteria: [
        { name: "x", weight: 1 },
        { name: "zero", weight: 1 },
      ],
      scores: [
        [2, 0],
        [1, 0],
      ],
    });
    expect(result.weighted_normalized.map((row) => row[1])).toEqual([0, 0]);
    expect(result.closeness).toEqual([1, 0]);
  });

  it("rejects bad input naming the field", () => {
    const base: TopsisInput = { options: ["a", "b"], criteria: [{ name: "x", weight: 1 }], scores: [[1], [2]] };
    expectInvalid(() => topsis({ ...base, scores: [[1], [Number.NaN]] }), "scores.1.0");
    expectInvalid(() => topsis({ ...base, criteria: [{ name: "x", weight: 0 }] }), "criteria");
    expectInvalid(
      () =>
        topsis({
          ...base,
          scores: [
            [1, 2],
            [2, 3],
          ],
        }),
      "scores.0",
    );
  });

  it("keeps closeness within [0, 1] for any matrix", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((criteria) =>
          fc.record({
            scores: fc.array(
              fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: criteria, maxLength: criteria }),
              { minLength: 1, maxLength: 6 },
            ),
            weights: fc.array(fc.double({ min: 0, max: 10, noNaN: true }), {
              minLength: criteria,
              maxLength: criteria,
            }),
            costs: fc.array(fc.boolean(), { minLength: criteria, maxLength: criteria }),
          }),
        ),
        ({ scores, weights, costs }) => {
          fc.pre(weights.some((weight) => weight > 0));
          const result = topsis({
            options: scores.map((_, index) => `o${index}`),
            criteria: weights.map((weight, index) => ({
              name: `c${index}`,
              weight,
              direction: costs[index] ? "cost" : "benefit",
            })),
            scores,
          });
          for (const value of result.closeness) {
            expect(value).toBeGreaterThanOrEqual(0);
            expect(value).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });

  it("ranks an option that dominates every other first", () => {
    fc.assert(
      fc.property(dominatedProblem(), ({ input, dominant }) => {
        const result = topsis(input);
        expect(result.rankings[0]?.index).toBe(dominant);
        expect(result.closeness[dominant]).toBe(1);
      }),
    );
  });

  it("is invariant to scaling all weights", () => {
    fc.assert(
      fc.property(dominatedProblem(), fc.double({ min: 1e-3, max: 1e3, noNaN: true }), ({ input }, factor) => {
        const base = topsis(input);
        const scaled = topsis({
          ...input,
          criteria: input.criteria.map((criterion) => ({ ...criterion, weight: criterion.weight * factor })),
        });
        scaled.closeness.forEach((value, index) => expect(value).toBeCloseTo(base.closeness[index] as number, 10));
      }),
    );
  });
});

/** Positive integer scores with one option strictly best on every criterion. */
function dominatedProblem() {
  return fc
    .record({
      optionCount: fc.integer({ min: 2, max: 6 }),
      costs: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
      seed: fc.array(fc.integer({ min: 2, max: 100 }), { minLength: 30, maxLength: 30 }),
      weights: fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 5, maxLength: 5 }),
      dominantSeed: fc.nat(),
    })
    .map(({ optionCount, costs, seed, weights, dominantSeed }) => {
      const dominant = dominantSeed % optionCount;
      const scores = Array.from({ length: optionCount }, (_, option) =>
        costs.map((_, criterion) => seed[(option * 5 + criterion) % 30] as number),
      );
      costs.forEach((cost, criterion) => {
        const column = scores.map((row) => row[criterion] as number);
        (scores[dominant] as number[])[criterion] = cost ? Math.min(...column) - 1 : Math.max(...column) + 1;
      });
      const input: TopsisInput = {
        options: scores.map((_, index) => `option ${index}`),
        criteria: costs.map((cost, index) => ({
          name: `criterion ${index}`,
          weight: weights[index] as number,
          direction: cost ? ("cost" as const) : ("benefit" as const),
        })),
        scores,
      };
      return { input, dominant };
    });
}

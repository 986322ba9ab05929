import { DeliberateError } from "@deliberate/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzePairwiseJudgements, analyzePairwiseMatrix, buildPairwiseMatrix, saatyRandomIndex } from "./ahp.ts";

function expectError(run: () => unknown, code: string, field?: string): DeliberateError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(DeliberateError.isInstance(caught)).toBe(true);
  const error = caught as DeliberateError;
  expect(error.code).toBe(code);
  if (field !== undefined) expect(error.issues.map((issue) => issue.field)).toContain(field);
  return error;
}

const expectInvalid = (run: () => unknown, field: string) => expectError(run, "INVALID_INPUT", field);

describe("analyzePairwiseMatrix", () => {
  it("reproduces the classic 3 x 3 textbook example (w = .637/.258/.105, λmax 3.039, CR 0.033)", () => {
    const result = analyzePairwiseMatrix({
      matrix: [
        [1, 3, 5],
        [1 / 3, 1, 3],
        [1 / 5, 1 / 3, 1],
      ],
    });
    expect(result.priorities[0]).toBeCloseTo(0.637, 3);
    expect(result.priorities[1]).toBeCloseTo(0.258, 3);
    expect(result.priorities[2]).toBeCloseTo(0.105, 3);
    expect(result.lambda_max).toBeCloseTo(3.0385, 4);
    expect(result.consistency_index).toBeCloseTo(0.0193, 4);
    expect(result.random_index).toBe(0.58);
    expect(result.consistency_ratio).toBeCloseTo(0.0332, 4);
    expect(result.consistent).toBe(true);
    expect(result.warning).toBeUndefined();
  });

  it("flags Saaty's inconsistent 4 x 4 example (w = .619/.235/.101/.045, λmax 4.39, CR 0.145)", () => {
    const result = analyzePairwiseMatrix({
      matrix: [
        [1, 5, 6, 7],
        [1 / 5, 1, 4, 6],
        [1 / 6, 1 / 4, 1, 4],
        [1 / 7, 1 / 6, 1 / 4, 1],
      ],
    });
    [0.6187, 0.2353, 0.1009, 0.0451].forEach((value, index) => expect(result.priorities[index]).toBeCloseTo(value, 4));
    expect(result.lambda_max).toBeCloseTo(4.3907, 4);
    expect(result.consistency_index).toBeCloseTo(0.1302, 4);
    expect(result.consistency_ratio).toBeCloseTo(0.1447, 4);
    expect(result.consistent).toBe(false);
    expect(result.warning).toContain("0.145 exceeds 0.1");
    // Judged 7, but the other judgements imply about 13.7: the judgement to revisit first.
    expect(result.most_inconsistent).toMatchObject({ row: 0, column: 3, value: 7 });
    expect(result.most_inconsistent?.implied).toBeCloseTo(13.725, 2);
    expect(result.warning).toContain("item 0 vs item 3");
  });

  it("handles one and two items with CR = 0", () => {
    expect(analyzePairwiseMatrix({ matrix: [[1]] })).toMatchObject({
      priorities: [1],
      lambda_max: 1,
      consistency_ratio: 0,
      consistent: true,
    });
    const two = analyzePairwiseMatrix({
      matrix: [
        [1, 9],
        [1 / 9, 1],
      ],
    });
    expect(two.priorities[0]).toBeCloseTo(0.9, 12);
    expect(two.consistency_ratio).toBe(0);
  });

  it("accepts two-decimal reciprocals within the default tolerance", () => {
    const result = analyzePairwiseMatrix({
      matrix: [
        [1, 3, 7],
        [0.33, 1, 3],
        [0.14, 0.33, 1],
      ],
    });
    expect(result.priorities.reduce((sum, value) => sum + value, 0)).toBeCloseTo(1, 12);
  });

  it("uses Saaty's random index table", () => {
    expect(saatyRandomIndex).toHaveLength(15);
    expect(saatyRandomIndex[3]).toBe(0.9);
    expect(saatyRandomIndex[14]).toBe(1.59);
  });

  it("has CR = 0 and recovers the weights for a consistent matrix built from any weights", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 1, max: 9, noNaN: true }), { minLength: 1, maxLength: 15 }), (weights) => {
        const matrix = weights.map((wi) => weights.map((wj) => wi / wj));
        const result = analyzePairwiseMatrix({ matrix });
        expect(Math.abs(result.consistency_ratio)).toBeLessThan(1e-9);
        expect(result.consistent).toBe(true);
        const total = weights.reduce((sum, value) => sum + value, 0);
        result.priorities.forEach((priority, index) =>
          expect(priority).toBeCloseTo((weights[index] as number) / total, 9),
        );
      }),
    );
  });

  it("rejects malformed matrices naming the cell", () => {
    expectInvalid(() => analyzePairwiseMatrix({ matrix: [] }), "matrix");
    expectInvalid(() => analyzePairwiseMatrix({ matrix: [[1, 2], [0.5]] }), "matrix.1");
    expectInvalid(() => analyzePairwiseMatrix({ matrix: [[1, 2], 0.5 as unknown as number[]] }), "matrix.1");
    expectInvalid(
      () =>
        analyzePairwiseMatrix({
          matrix: [
            [1, 2, 3],
            [0.5, 1, 2],
          ],
        }),
      "matrix.0",
    );
    expectInvalid(
      () =>
        analyzePairwiseMatrix({
          matrix: [
            [1, -2],
            [-0.5, 1],
          ],
        }),
      "matrix.0.1",
    );
    expectInvalid(
      () =>
        analyzePairwiseMatrix({
          matrix: [
            [1, Number.NaN],
            [1, 1],
          ],
        }),
      "matrix.0.1",
    );
    expectInvalid(
      () =>
        analyzePairwiseMatrix({
          matrix: [
            [2, 1],
            [1, 1],
          ],
        }),
      "matrix.0.0",
    );
    expectInvalid(
      () =>
        analyzePairwiseMatrix({
          matrix: [
            [1, 3],
            [3, 1],
          ],
        }),
      "matrix.1.0",
    );
    expectInvalid(
      () =>
        analyzePairwiseMatrix({
          matrix: [
            [1, 20],
            [1 / 20, 1],
          ],
        }),
      "matrix.0.1",
    );
    const big = Array.from({ length: 16 }, () => Array.from({ length: 16 }, () => 1));
    expectInvalid(() => analyzePairwiseMatrix({ matrix: big }), "matrix");
  });

  it("rejects bad options", () => {
    expectInvalid(() => analyzePairwiseMatrix({ matrix: [[1]], reciprocal_tolerance: -1 }), "reciprocal_tolerance");
    expectInvalid(() => analyzePairwiseMatrix({ matrix: [[1]], convergence_tolerance: 0 }), "convergence_tolerance");
    expectInvalid(() => analyzePairwiseMatrix({ matrix: [[1]], max_iterations: 0.5 }), "max_iterations");
  });

  it("reports LIMIT_EXCEEDED when power iteration does not converge in time", () => {
    const matrix = [
      [1, 5, 6, 7],
      [1 / 5, 1, 4, 6],
      [1 / 6, 1 / 4, 1, 4],
      [1 / 7, 1 / 6, 1 / 4, 1],
    ];
    expectError(() => analyzePairwiseMatrix({ matrix, max_iterations: 2 }), "LIMIT_EXCEEDED");
    expect(analyzePairwiseMatrix({ matrix }).iterations).toBeGreaterThan(2);
  });
});

describe("buildPairwiseMatrix", () => {
  it("fills the reciprocal matrix from one judgement per pair, in either orientation", () => {
    const matrix = buildPairwiseMatrix({
      items: ["cost", "speed", "safety"],
      judgements: [
        { a: "cost", b: "speed", value: 3 },
        { a: "safety", b: "cost", value: 5 },
        { a: "speed", b: "safety", value: 1 / 3 },
      ],
    });
    expect(matrix).toEqual([
      [1, 3, 1 / 5],
      [1 / 3, 1, 1 / 3],
      [5, 3, 1],
    ]);
  });

  it("names every missing pair", () => {
    const error = expectInvalid(
      () => buildPairwiseMatrix({ items: ["a", "b", "c"], judgements: [{ a: "a", b: "b", value: 2 }] }),
      "judgements",
    );
    expect(error.message).toContain('"a" vs "c"');
    expect(error.message).toContain('"b" vs "c"');
  });

  it("rejects unknown, repeated and self judgements and out-of-scale values", () => {
    const items = ["a", "b"];
    expectInvalid(() => buildPairwiseMatrix({ items, judgements: [{ a: "a", b: "z", value: 2 }] }), "judgements.0.b");
    expectInvalid(() => buildPairwiseMatrix({ items, judgements: [{ a: "x", b: "b", value: 2 }] }), "judgements.0.a");
    expectInvalid(
      () =>
        buildPairwiseMatrix({
          items,
          judgements: [
            { a: "a", b: "b", value: 2 },
            { a: "b", b: "a", value: 0.5 },
          ],
        }),
      "judgements.1",
    );
    expectInvalid(
      () =>
        buildPairwiseMatrix({
          items,
          judgements: [
            { a: "a", b: "a", value: 1 },
            { a: "a", b: "b", value: 2 },
          ],
        }),
      "judgements.0",
    );
    expectInvalid(
      () => buildPairwiseMatrix({ items, judgements: [{ a: "a", b: "b", value: 10 }] }),
      "judgements.0.value",
    );
    expectInvalid(() => buildPairwiseMatrix({ items: ["a", "a"], judgements: [] }), "items.1");
    expectInvalid(() => buildPairwiseMatrix({ items: [], judgements: [] }), "items");
    expectInvalid(() => buildPairwiseMatrix({ items, judgements: {} as unknown as [] }), "judgements");
    expectInvalid(
      () => buildPairwiseMatrix({ items, judgements: [{ a: "a", b: "b", value: Number.NaN }] }),
      "judgements.0.value",
    );
  });
});

describe("analyzePairwiseJudgements", () => {
  it("ranks named items and names them in the inconsistency warning", () => {
    const result = analyzePairwiseJudgements({
      items: ["speed", "cost", "risk"],
      judgements: [
        { a: "speed", b: "cost", value: 9 },
        { a: "cost", b: "risk", value: 9 },
        { a: "risk", b: "speed", value: 9 },
      ],
    });
    expect(result.consistent).toBe(false);
    expect(result.warning).toMatch(/"(speed|cost|risk)" vs "(speed|cost|risk)"/);
    expect(result.rankings).toHaveLength(3);
    // A perfectly cyclic judgement set has no preferred item: equal priorities, ranked by input order.
    expect(result.rankings.map((ranked) => ranked.option)).toEqual(["speed", "cost", "risk"]);
  });
});

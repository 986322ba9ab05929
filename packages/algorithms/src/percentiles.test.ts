import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import { type PercentileMethod, percentile, percentiles } from "./percentiles.ts";

describe("percentile", () => {
  const values = [50, 15, 35, 20, 40];

  it("interpolates linearly between closest ranks (numpy default)", () => {
    // sorted 15 20 35 40 50; p40: rank 4·0.4 = 1.6 -> 20 + 0.6·(35 − 20) = 29
    expect(percentile(values, 40)).toBe(29);
    expect(percentile(values, 50)).toBe(35);
    expect(percentile(values, 0)).toBe(15);
    expect(percentile(values, 100)).toBe(50);
    expect(percentile([7], 99)).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(hundred, 95)).toBeCloseTo(95.05, 12);
    expect(percentile(hundred, 99)).toBeCloseTo(99.01, 12);
  });

  it("supports the nearest-rank method", () => {
    // The classic nearest-rank example on 15 20 35 40 50.
    expect(percentiles({ values, ps: [5, 30, 40, 50, 100], method: "nearest_rank" })).toEqual([15, 20, 20, 35, 50]);
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentiles({ values: hundred, ps: [50, 95, 99], method: "nearest_rank" })).toEqual([50, 95, 99]);
  });

  it("computes several percentiles in the order asked", () => {
    expect(percentiles({ values, ps: [100, 0, 50] })).toEqual([50, 15, 35]);
  });

  it("stays within [min, max] and grows with p", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 50 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        fc.constantFrom<PercentileMethod>("linear", "nearest_rank"),
        (sample, first, second, method) => {
          const [low, high] = first <= second ? [first, second] : [second, first];
          const [atLow, atHigh] = percentiles({ values: sample, ps: [low, high], method });
          expect(atLow as number).toBeLessThanOrEqual(atHigh as number);
          expect(atLow as number).toBeGreaterThanOrEqual(Math.min(...sample));
          expect(atHigh as number).toBeLessThanOrEqual(Math.max(...sample));
        },
      ),
    );
  });

  it("rejects bad input naming the field", () => {
    expectInvalid(() => percentile([], 50), "values");
    expectInvalid(() => percentile([1, Number.NaN], 50), "values.1");
    expectInvalid(() => percentile([1], 101), "p");
    expectInvalid(() => percentile([1], Number.NaN), "p");
    expectInvalid(() => percentiles({ values: [1], ps: [] }), "ps");
    expectInvalid(() => percentiles({ values: [1], ps: [50, -1] }), "ps.1");
    expectInvalid(() => percentiles({ values: [1], ps: [50], method: "midpoint" as PercentileMethod }), "method");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayScore, rankOptions } from "./ranking.ts";

describe("scores as shown", () => {
  it("carry no float noise: at most 4 decimals, ranks still from the full values", () => {
    const ranked = rankOptions(["a", "b"], [0.1 + 0.2, 0.35000000000000003]);
    expect(ranked.map((entry) => [entry.option, entry.score])).toEqual([
      ["b", 0.35],
      ["a", 0.3],
    ]);
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (score) => {
        const shown = displayScore(score);
        expect(Math.abs(shown - score)).toBeLessThanOrEqual(0.00005 + Math.abs(score) * 1e-12);
        expect(Number.isInteger(Math.round(shown * 10_000 * 1e3) / 1e3)).toBe(true);
      }),
    );
  });
});

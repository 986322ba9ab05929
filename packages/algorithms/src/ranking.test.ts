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
    expect(displayScore(593441426.71945)).toBe(593441426.7195);
    fc.assert(
      fc.property(fc.double({ min: -1e9, max: 1e9, noNaN: true }), (score) => {
        const shown = displayScore(score);
        expect(Math.abs(shown - score)).toBeLessThanOrEqual(0.00005 + Math.abs(score) * 1e-12);
        // As written (the shortest decimal that reads back as the value): at most 4 decimals. (Scaling by
        // 10,000 to look for an integer is itself off by float noise at large magnitudes.)
        expect((String(shown).split(".")[1] ?? "").length).toBeLessThanOrEqual(4);
      }),
    );
  });
});

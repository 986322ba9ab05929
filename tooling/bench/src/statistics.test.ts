import { describe, expect, it } from "vitest";
import { formatComparison, quantile, summarize } from "./statistics.ts";

describe("statistics", () => {
  it("uses nearest-rank quantiles", () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(quantile(values, 0.5)).toBe(50);
    expect(quantile(values, 0.95)).toBe(95);
    expect(quantile(values, 0.99)).toBe(99);
    expect(quantile([7], 0.99)).toBe(7);
    expect(() => quantile([], 0.5)).toThrow("no values");
  });

  it("summarizes unsorted values and formats ratios", () => {
    const summary = summarize([4, 1, 3, 2]);
    expect(summary).toEqual({ count: 4, p50: 2, p95: 4, p99: 4, mean: 2.5 });
    const text = formatComparison("latency", summary, { ...summary, p50: 1 });
    expect(text).toContain("2.00x");
  });
});

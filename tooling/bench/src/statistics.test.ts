import { describe, expect, it } from "vitest";
import { formatComparison, formatSeries, quantile, summarize } from "./statistics.ts";

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

  it("formats deliberate against its peer and the bare baseline, and judges the goal on the peer's p50", () => {
    const deliberate = summarize([2, 2, 2, 2]);
    const peer = summarize([4, 4, 4, 4]);
    const bare = summarize([1, 1, 1, 1]);
    const text = formatSeries("calls", { deliberate, peer, bare }, 1.0);
    expect(text).toContain("/ peer");
    expect(text).toContain("0.50x");
    expect(text).toContain("2.00x");
    expect(text).toContain("goal p50 <= 1.00x peer: met (0.50x)");
    expect(formatSeries("calls", { deliberate: peer, bare }, 1.5)).toContain("goal p50 <= 1.50x bare: MISSED (4.00x)");
  });

  it("judges a p95 goal beside the p50 one", () => {
    const deliberate = summarize([...Array.from({ length: 18 }, () => 1), 10, 10]);
    const peer = summarize([...Array.from({ length: 18 }, () => 2), 5, 5]);
    const text = formatSeries("calls", { deliberate, peer, bare: peer }, { p50: 0.9, p95: 1.2 });
    expect(text).toContain("goal p50 <= 0.90x peer: met (0.50x)");
    expect(text).toContain("goal p95 <= 1.20x peer: MISSED (2.00x)");
  });
});

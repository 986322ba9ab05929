import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deviationPercent, severityFromDeviation } from "./severity.ts";
import { metricNames, severityRank } from "./types.ts";

describe("severity from deviation (design §14.2)", () => {
  it("maps the thresholds exactly", () => {
    expect([0, 24.99, 25, 49.99, 50, 99.99, 100, 500].map(severityFromDeviation)).toEqual([
      "info",
      "info",
      "warning",
      "warning",
      "high",
      "high",
      "critical",
      "critical",
    ]);
  });

  it("is monotone: a larger deviation is never less severe", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1000, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        (deviation, extra) => {
          expect(severityRank(severityFromDeviation(deviation + extra))).toBeGreaterThanOrEqual(
            severityRank(severityFromDeviation(deviation)),
          );
        },
      ),
    );
  });

  it("is positive exactly when the metric got worse (rates and latency up, quality down)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...metricNames),
        fc.double({ min: 0.001, max: 1000, noNaN: true }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        (metric, baseline, observed) => {
          const deviation = deviationPercent(metric, observed, baseline);
          const worse = metric === "quality" ? observed < baseline : observed > baseline;
          // Deviations are rounded to 1e-9 %, so a difference below that reads as 0: strict only above it.
          const noticeable = Math.abs(observed - baseline) / baseline > 1e-9;
          if (worse && noticeable) expect(deviation).toBeGreaterThan(0);
          else if (worse) expect(deviation).toBeGreaterThanOrEqual(0);
          else expect(deviation).toBeLessThanOrEqual(0);
        },
      ),
    );
  });

  it("treats a zero baseline as the spec does: 100 % when worse, else 0; and never lets float noise cross a threshold", () => {
    expect(deviationPercent("error_rate", 0.05, 0)).toBe(100);
    expect(deviationPercent("error_rate", 0, 0)).toBe(0);
    expect(deviationPercent("error_rate", 0.3, 0.2)).toBe(50);
    expect(severityFromDeviation(deviationPercent("error_rate", 0.3, 0.2))).toBe("high");
    expect(deviationPercent("quality", 0.6, 0.8)).toBe(25);
  });
});

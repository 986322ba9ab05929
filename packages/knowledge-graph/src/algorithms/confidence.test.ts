import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combineConfidence, graphSupport } from "./confidence.ts";

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const optionalUnit = fc.option(unit, { nil: null });
const count = fc.integer({ min: 0, max: 50 });

describe("confidence", () => {
  it("stays in [0, 1] and equals the verbalized confidence alone when nothing else was measured", () => {
    fc.assert(
      fc.property(unit, optionalUnit, optionalUnit, (verbalizedConfidence, consistency, support) => {
        const { score, method } = combineConfidence({ verbalizedConfidence, consistency, graphSupport: support });
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        if (consistency === null && support === null) {
          expect(score).toBeCloseTo(verbalizedConfidence, 12);
          expect(method).toBe("verbalizedConfidence");
        } else {
          expect(method).toBe("combined");
        }
      }),
    );
  });

  it("never decreases when a component increases", () => {
    fc.assert(
      fc.property(unit, unit, unit, unit, fc.constantFrom("verbalizedConfidence", "consistency", "graphSupport"), (v, c, g, bump, which) => {
        const base = { verbalizedConfidence: v, consistency: c, graphSupport: g };
        const raised = { ...base, [which]: Math.min(1, base[which as keyof typeof base] + bump) };
        expect(combineConfidence(raised).score).toBeGreaterThanOrEqual(combineConfidence(base).score - 1e-12);
      }),
    );
  });

  it("graph support rises with supporting facts and falls with contradicting or absent ones", () => {
    fc.assert(
      fc.property(count, count, count, (supporting, contradicting, unsupported) => {
        const value = graphSupport({ supporting, contradicting, unsupported });
        expect(value).toBeGreaterThan(0);
        expect(value).toBeLessThan(1);
        expect(graphSupport({ supporting: supporting + 1, contradicting, unsupported })).toBeGreaterThan(value);
        expect(graphSupport({ supporting, contradicting: contradicting + 1, unsupported })).toBeLessThan(value);
        expect(graphSupport({ supporting, contradicting, unsupported: unsupported + 1 })).toBeLessThan(value);
      }),
    );
    expect(graphSupport({ supporting: 0, contradicting: 0, unsupported: 0 })).toBe(0.5);
  });
});

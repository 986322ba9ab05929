import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combineConfidence, credibleShare, graphSupport } from "./confidence.ts";

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const optionalUnit = fc.option(unit, { nil: null });
const count = fc.integer({ min: 0, max: 50 });

describe("confidence", () => {
  it("stays in [0, 1], is always combined, and the model's own word moves it by at most 0.2", () => {
    fc.assert(
      fc.property(unit, unit, optionalUnit, unit, unit, (verbalizedConfidence, other, consistency, support, basis) => {
        const { score, method } = combineConfidence({
          verbalizedConfidence,
          consistency,
          graphSupport: support,
          basis,
        });
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(method).toBe("combined");
        const moved = combineConfidence({
          verbalizedConfidence: other,
          consistency,
          graphSupport: support,
          basis,
        }).score;
        expect(Math.abs(moved - score)).toBeLessThanOrEqual(0.2 * Math.abs(other - verbalizedConfidence) + 1e-12);
      }),
    );
  });

  it("never decreases when a component increases", () => {
    fc.assert(
      fc.property(
        unit,
        unit,
        unit,
        unit,
        unit,
        fc.constantFrom("verbalizedConfidence", "consistency", "graphSupport", "basis"),
        (v, c, g, b, bump, which) => {
          const base = { verbalizedConfidence: v, consistency: c, graphSupport: g, basis: b };
          const raised = { ...base, [which]: Math.min(1, base[which as keyof typeof base] + bump) };
          expect(combineConfidence(raised).score).toBeGreaterThanOrEqual(combineConfidence(base).score - 1e-12);
        },
      ),
    );
  });

  it("graph support rises with supporting facts and falls with contradicting or absent ones; a hypothesis supports less than an asserted fact", () => {
    fc.assert(
      fc.property(count, count, count, (supporting, contradicting, unsupported) => {
        const value = graphSupport({ supporting, contradicting, unsupported });
        expect(value).toBeGreaterThan(0);
        expect(value).toBeLessThan(1);
        expect(graphSupport({ supporting: supporting + 1, contradicting, unsupported })).toBeGreaterThan(value);
        expect(graphSupport({ supporting, contradicting: contradicting + 1, unsupported })).toBeLessThan(value);
        expect(graphSupport({ supporting, contradicting, unsupported: unsupported + 1 })).toBeLessThan(value);
        // The same citation counts more when it is asserted than when it rests on a hypothesis.
        expect(
          graphSupport({ supporting: supporting + 1, supportingWeight: supporting + 0.5, contradicting, unsupported }),
        ).toBeLessThan(graphSupport({ supporting: supporting + 1, contradicting, unsupported }));
        // A contradicted citation weighs more against than an unknown one.
        expect(graphSupport({ supporting, contradicting: contradicting + 1, unsupported })).toBeLessThan(
          graphSupport({ supporting, contradicting, unsupported: unsupported + 1 }),
        );
      }),
    );
    expect(graphSupport({ supporting: 0, contradicting: 0, unsupported: 0 })).toBe(0.5);
  });

  it("credits the basis only as far as the citations are not contradicted or unknown", () => {
    fc.assert(
      fc.property(count, count, count, (supporting, contradicting, unsupported) => {
        const share = credibleShare({ supporting, contradicting, unsupported });
        expect(share).toBeGreaterThanOrEqual(0);
        expect(share).toBeLessThanOrEqual(1);
        if (contradicting + unsupported > 0) expect(share).toBeLessThan(1);
        if (supporting === 0 && unsupported === 0 && contradicting > 0) expect(share).toBe(0);
      }),
    );
    expect(credibleShare({ supporting: 0, contradicting: 0, unsupported: 0 })).toBe(1);
  });

  it("orders a proof above a consistent hypothesis above a contradicted claim for the same model output", () => {
    fc.assert(
      fc.property(unit, fc.integer({ min: 1, max: 6 }), (verbalizedConfidence, cited) => {
        const proof = combineConfidence({
          verbalizedConfidence,
          graphSupport: graphSupport({ supporting: cited, contradicting: 0, unsupported: 0 }),
          basis: 1,
        }).score;
        const hypothesis = combineConfidence({
          verbalizedConfidence,
          graphSupport: graphSupport({
            supporting: cited,
            supportingWeight: cited - 0.5,
            contradicting: 0,
            unsupported: 0,
          }),
          basis: 0.6,
        }).score;
        const against = { supporting: 0, contradicting: cited, unsupported: 0 };
        const contradicted = combineConfidence({
          verbalizedConfidence,
          graphSupport: graphSupport(against),
          basis: 0.5 * credibleShare(against),
        }).score;
        expect(proof).toBeGreaterThan(hypothesis);
        expect(hypothesis).toBeGreaterThan(contradicted);
        expect(contradicted).toBeLessThan(0.5);
      }),
    );
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import {
  bayesianUpdate,
  binaryEntropy,
  conditionalIndependenceAssumption,
  multiHypothesisUpdate,
  shannonEntropy,
} from "./bayes.ts";

const probability = fc.double({ min: 0.001, max: 1, noNaN: true });
const evidenceItem = fc.record({ likelihood_if_true: probability, likelihood_if_false: probability });

describe("bayesianUpdate", () => {
  it("matches a hand-computed two-step update", () => {
    // Step 1: 0.3·0.8 / (0.3·0.8 + 0.7·0.2) = 0.24 / 0.38 = 12/19.
    // Step 2: (12/19)·0.6 / ((12/19)·0.6 + (7/19)·0.5) = 7.2 / 10.7 = 72/107.
    const result = bayesianUpdate({
      prior: 0.3,
      evidence: [
        { likelihood_if_true: 0.8, likelihood_if_false: 0.2 },
        { likelihood_if_true: 0.6, likelihood_if_false: 0.5 },
      ],
    });
    expect(result.trace[0]?.posterior).toBeCloseTo(12 / 19, 14);
    expect(result.trace[0]?.marginal_likelihood).toBeCloseTo(0.38, 14);
    expect(result.trace[1]?.prior).toBeCloseTo(12 / 19, 14);
    expect(result.posterior).toBeCloseTo(72 / 107, 14);
    expect(result.likelihood_ratio).toBeCloseTo(4.8, 14);
    expect(result.log10_likelihood_ratio).toBeCloseTo(Math.log10(4.8), 14);
    expect(result.prior_odds).toBeCloseTo(3 / 7, 14);
    expect(result.posterior_odds).toBeCloseTo(72 / 35, 14);
    expect(result.entropy).toBeCloseTo(0.911939, 6);
    expect(result.prior_entropy).toBeCloseTo(binaryEntropy(0.3), 14);
    // Sensitivity (δ = 0.05). Upper: odds 3/7 · 0.85/0.15 · 0.65/0.45 -> 0.778169.
    // Lower: odds 3/7 · 0.75/0.25 · 0.55/0.55 = 9/7 -> 9/16.
    expect(result.sensitivity_interval.delta).toBe(0.05);
    expect(result.sensitivity_interval.upper).toBeCloseTo(0.778169, 6);
    expect(result.sensitivity_interval.lower).toBeCloseTo(9 / 16, 12);
    expect(result.assumption).toBe(conditionalIndependenceAssumption);
  });

  it("handles conclusive evidence: P(E|¬H) = 0 proves H, P(E|H) = 0 refutes it", () => {
    const proves = bayesianUpdate({ prior: 0.2, evidence: [{ likelihood_if_true: 0.5, likelihood_if_false: 0 }] });
    expect(proves.posterior).toBe(1);
    expect(proves.likelihood_ratio).toBe(Infinity);
    expect(proves.posterior_odds).toBe(Infinity);
    expect(proves.entropy).toBe(0);
    const refutes = bayesianUpdate({ prior: 0.2, evidence: [{ likelihood_if_true: 0, likelihood_if_false: 0.5 }] });
    expect(refutes.posterior).toBe(0);
    expect(refutes.likelihood_ratio).toBe(0);
    // The floor keeps a perturbed positive likelihood positive, but a given 0 stays 0.
    expect(refutes.sensitivity_interval.lower).toBe(0);
    expect(refutes.sensitivity_interval.upper).toBeGreaterThan(0);
  });

  it("clamps perturbed likelihoods to [min(v, 0.001), 1]", () => {
    const result = bayesianUpdate({
      prior: 0.5,
      evidence: [{ likelihood_if_true: 0.02, likelihood_if_false: 0.98 }],
      sensitivity_delta: 0.1,
    });
    // lower: a -> 0.001 (floor), b -> 1 ; upper: a -> 0.12, b -> 0.88
    expect(result.sensitivity_interval.lower).toBeCloseTo(0.001 / 1.001, 12);
    expect(result.sensitivity_interval.upper).toBeCloseTo(0.12 / 1.0, 12);
  });

  it("keeps the prior's certainty", () => {
    expect(
      bayesianUpdate({ prior: 1, evidence: [{ likelihood_if_true: 0.1, likelihood_if_false: 0.9 }] }).posterior,
    ).toBe(1);
    expect(
      bayesianUpdate({ prior: 0, evidence: [{ likelihood_if_true: 0.9, likelihood_if_false: 0.1 }] }),
    ).toMatchObject({ posterior: 0, posterior_odds: 0 });
  });

  it("rejects bad input naming the field", () => {
    const item = { likelihood_if_true: 0.5, likelihood_if_false: 0.5 };
    expectInvalid(() => bayesianUpdate({ prior: 1.5, evidence: [item] }), "prior");
    expectInvalid(() => bayesianUpdate({ prior: Number.NaN, evidence: [item] }), "prior");
    expectInvalid(() => bayesianUpdate({ prior: 0.5, evidence: [] }), "evidence");
    expectInvalid(
      () => bayesianUpdate({ prior: 0.5, evidence: [item, { ...item, likelihood_if_true: -0.1 }] }),
      "evidence.1.likelihood_if_true",
    );
    expectInvalid(
      () => bayesianUpdate({ prior: 0.5, evidence: [{ ...item, likelihood_if_false: Infinity }] }),
      "evidence.0.likelihood_if_false",
    );
    expectInvalid(
      () => bayesianUpdate({ prior: 0.5, evidence: [{ likelihood_if_true: 0, likelihood_if_false: 0 }] }),
      "evidence.0",
    );
    expectInvalid(() => bayesianUpdate({ prior: 0.5, evidence: [item], sensitivity_delta: 2 }), "sensitivity_delta");
  });

  it("rejects evidence made impossible by the prior or earlier evidence", () => {
    expectInvalid(
      () => bayesianUpdate({ prior: 1, evidence: [{ likelihood_if_true: 0, likelihood_if_false: 0.4 }] }),
      "evidence.0",
    );
    expectInvalid(
      () =>
        bayesianUpdate({
          prior: 0.5,
          evidence: [
            { likelihood_if_true: 0, likelihood_if_false: 0.5 },
            { likelihood_if_true: 0.5, likelihood_if_false: 0 },
          ],
        }),
      "evidence.1",
    );
  });

  it("keeps every posterior and the interval within [0, 1], around the posterior", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(evidenceItem, { minLength: 1, maxLength: 8 }),
        (prior, evidence) => {
          const result = bayesianUpdate({ prior, evidence });
          for (const step of result.trace) {
            expect(step.posterior).toBeGreaterThanOrEqual(0);
            expect(step.posterior).toBeLessThanOrEqual(1);
          }
          expect(result.sensitivity_interval.lower).toBeGreaterThanOrEqual(0);
          expect(result.sensitivity_interval.lower).toBeLessThanOrEqual(result.posterior);
          expect(result.sensitivity_interval.upper).toBeGreaterThanOrEqual(result.posterior);
          expect(result.sensitivity_interval.upper).toBeLessThanOrEqual(1);
          expect(result.entropy).toBeGreaterThanOrEqual(0);
          expect(result.entropy).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("makes the posterior monotone in the likelihood ratio", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 0.999, noNaN: true }),
        evidenceItem,
        evidenceItem,
        (prior, first, second) => {
          const ratio = (item: typeof first) => item.likelihood_if_true / item.likelihood_if_false;
          const [weaker, stronger] = ratio(first) <= ratio(second) ? [first, second] : [second, first];
          const low = bayesianUpdate({ prior, evidence: [weaker] }).posterior;
          const high = bayesianUpdate({ prior, evidence: [stronger] }).posterior;
          expect(low).toBeLessThanOrEqual(high + 1e-12);
        },
      ),
    );
  });

  it("does not depend on the order of the evidence", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        fc.array(evidenceItem, { minLength: 2, maxLength: 6 }),
        (prior, evidence) => {
          const forward = bayesianUpdate({ prior, evidence }).posterior;
          const backward = bayesianUpdate({ prior, evidence: [...evidence].reverse() }).posterior;
          expect(backward).toBeCloseTo(forward, 9);
        },
      ),
    );
  });
});

describe("multiHypothesisUpdate", () => {
  it("agrees with the binary update when given H and not-H", () => {
    const result = multiHypothesisUpdate({
      hypotheses: ["H", "not H"],
      priors: [3, 7],
      evidence: [{ likelihoods: [0.8, 0.2] }, { likelihoods: [0.6, 0.5] }],
    });
    expect(result.priors).toEqual([0.3, 0.7]);
    expect(result.posteriors[0]).toBeCloseTo(72 / 107, 14);
    expect(result.posteriors[1]).toBeCloseTo(35 / 107, 14);
    expect(result.trace[0]?.[0]).toBeCloseTo(12 / 19, 14);
    expect(result.most_probable).toMatchObject({ hypothesis: "H", index: 0 });
    expect(result.entropy).toBeCloseTo(0.911939, 6);
  });

  it("updates three hypotheses and breaks ties by input order", () => {
    const result = multiHypothesisUpdate({
      hypotheses: ["a", "b", "c"],
      priors: [1, 1, 2],
      evidence: [{ likelihoods: [0.5, 0.5, 0.25] }],
    });
    // joint: 0.125, 0.125, 0.125 -> uniform
    result.posteriors.forEach((posterior) => expect(posterior).toBeCloseTo(1 / 3, 14));
    expect(result.most_probable.hypothesis).toBe("a");
    expect(result.entropy).toBeCloseTo(Math.log2(3), 12);
    expect(shannonEntropy([0.5, 0.5])).toBe(1);
  });

  it("rejects bad input naming the field", () => {
    const ok = { hypotheses: ["a", "b"], priors: [0.5, 0.5], evidence: [{ likelihoods: [0.5, 0.5] }] };
    expectInvalid(() => multiHypothesisUpdate({ ...ok, hypotheses: ["a"] }), "hypotheses");
    expectInvalid(() => multiHypothesisUpdate({ ...ok, hypotheses: ["a", "a"] }), "hypotheses.1");
    expectInvalid(() => multiHypothesisUpdate({ ...ok, priors: [1] }), "priors");
    expectInvalid(() => multiHypothesisUpdate({ ...ok, priors: [1, -1] }), "priors.1");
    expectInvalid(() => multiHypothesisUpdate({ ...ok, priors: [0, 0] }), "priors");
    expectInvalid(() => multiHypothesisUpdate({ ...ok, evidence: [] }), "evidence");
    expectInvalid(() => multiHypothesisUpdate({ ...ok, evidence: [{ likelihoods: [0.5] }] }), "evidence.0.likelihoods");
    expectInvalid(
      () => multiHypothesisUpdate({ ...ok, evidence: [{ likelihoods: "x" as unknown as number[] }] }),
      "evidence.0.likelihoods",
    );
    expectInvalid(
      () => multiHypothesisUpdate({ ...ok, evidence: [{ likelihoods: [0.5, 1.5] }] }),
      "evidence.0.likelihoods.1",
    );
    expectInvalid(
      () => multiHypothesisUpdate({ ...ok, priors: [1, 0], evidence: [{ likelihoods: [0, 0.5] }] }),
      "evidence.0.likelihoods",
    );
  });
});

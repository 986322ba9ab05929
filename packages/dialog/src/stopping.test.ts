import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideStopping, type StoppingFacts, type StoppingRules } from "./stopping.ts";

const rulesArbitrary: fc.Arbitrary<StoppingRules> = fc.record({
  maxIterations: fc.integer({ min: 1, max: 20 }),
  qualityThreshold: fc.double({ min: 0, max: 1, noNaN: true }),
  tokenBudget: fc.option(fc.integer({ min: 100, max: 1_000_000 }), { nil: null }),
  wallTimeBudgetSeconds: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: null }),
});
const factsArbitrary: fc.Arbitrary<StoppingFacts> = fc.record({
  completedIterations: fc.integer({ min: 1, max: 25 }),
  reviewerScore: fc.double({ min: 0, max: 1, noNaN: true }),
  tokensUsed: fc.integer({ min: 0, max: 2_000_000 }),
  lastIterationTokens: fc.integer({ min: 0, max: 100_000 }),
  elapsedSeconds: fc.double({ min: 0, max: 200_000, noNaN: true }),
  lastIterationSeconds: fc.double({ min: 0, max: 10_000, noNaN: true }),
});

describe("stopping rules", () => {
  it("threshold_met exactly when the reviewers' score reaches the threshold", () => {
    fc.assert(
      fc.property(rulesArbitrary, factsArbitrary, (rules, facts) => {
        expect(decideStopping(rules, facts).status === "threshold_met").toBe(
          facts.reviewerScore >= rules.qualityThreshold,
        );
      }),
    );
  });

  it("never continues past max iterations, a spent token budget or a spent wall-time budget", () => {
    fc.assert(
      fc.property(rulesArbitrary, factsArbitrary, (rules, facts) => {
        const decision = decideStopping(rules, facts);
        expect(decision.shouldContinue).toBe(decision.status === "in_progress");
        if (facts.completedIterations >= rules.maxIterations) expect(decision.shouldContinue).toBe(false);
        if (rules.tokenBudget !== null && facts.tokensUsed + facts.lastIterationTokens > rules.tokenBudget)
          expect(decision.shouldContinue).toBe(false);
        if (
          rules.wallTimeBudgetSeconds !== null &&
          facts.elapsedSeconds + facts.lastIterationSeconds > rules.wallTimeBudgetSeconds
        ) {
          expect(decision.shouldContinue).toBe(false);
        }
        if (!decision.shouldContinue) expect(decision.reason).toEqual(expect.any(String));
      }),
    );
  });

  it("continues when no rule fires, and removing a budget never stops a session that continued", () => {
    fc.assert(
      fc.property(rulesArbitrary, factsArbitrary, (rules, facts) => {
        const decision = decideStopping(rules, facts);
        const unbudgeted = decideStopping({ ...rules, tokenBudget: null, wallTimeBudgetSeconds: null }, facts);
        if (decision.shouldContinue) expect(unbudgeted.shouldContinue).toBe(true);
        if (unbudgeted.shouldContinue && !decision.shouldContinue) expect(decision.status).toBe("budget_exhausted");
      }),
    );
  });

  it("stops early when the next iteration, costing what the last did, would pass the token budget", () => {
    const rules = { maxIterations: 10, qualityThreshold: 0.9, tokenBudget: 10_000, wallTimeBudgetSeconds: null };
    const facts = {
      completedIterations: 2,
      reviewerScore: 0.5,
      tokensUsed: 6_000,
      lastIterationTokens: 3_000,
      elapsedSeconds: 10,
      lastIterationSeconds: 5,
    };
    expect(decideStopping(rules, facts).status).toBe("in_progress");
    expect(decideStopping(rules, { ...facts, tokensUsed: 7_500 })).toMatchObject({
      status: "budget_exhausted",
      shouldContinue: false,
    });
    expect(decideStopping(rules, { ...facts, tokensUsed: 7_500 }).reason).toContain(
      "the next iteration (about 3000 tokens, like this one) would pass it",
    );
  });

  it("ranks threshold_met over max_iterations over budget_exhausted", () => {
    const rules = { maxIterations: 2, qualityThreshold: 0.8, tokenBudget: 1_000, wallTimeBudgetSeconds: 10 };
    const spent = {
      completedIterations: 2,
      reviewerScore: 0.85,
      tokensUsed: 5_000,
      lastIterationTokens: 2_000,
      elapsedSeconds: 50,
      lastIterationSeconds: 20,
    };
    expect(decideStopping(rules, spent).status).toBe("threshold_met");
    expect(decideStopping(rules, { ...spent, reviewerScore: 0.5 }).status).toBe("max_iterations");
    expect(decideStopping(rules, { ...spent, reviewerScore: 0.5, completedIterations: 1 }).status).toBe(
      "budget_exhausted",
    );
  });
});

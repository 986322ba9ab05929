import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Hypothesis, rankHypotheses, scoreHypothesis } from "./hypothesis-scoring.ts";
import type { Fact } from "./triples.ts";

const nodes = ["a", "b", "c", "d", "e"];
const fact = fc.record({
  subject: fc.constantFrom(...nodes),
  predicate: fc.constantFrom("p", "not_p", "q"),
  object: fc.constantFrom(...nodes),
});
const observation = fc.record({ entities: fc.array(fc.constantFrom(...nodes), { minLength: 1, maxLength: 2 }) });
const hypothesis = fc.record({
  name: fc.constantFrom("h1", "h2", "h3"),
  additions: fc.array(fact, { minLength: 1, maxLength: 4 }),
  newEntities: fc.constant([] as string[]),
});

describe("hypothesis scoring", () => {
  it("keeps every criterion and the score in [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 10 }),
        fc.array(observation, { maxLength: 4 }),
        hypothesis,
        (facts, observations, candidate) => {
          const score = scoreHypothesis({ facts }, observations, candidate);
          for (const value of [score.coverage, score.simplicity, score.consistency, score.score]) {
            expect(value).toBeGreaterThanOrEqual(0);
            expect(value).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });

  it("reports an addition that contradicts the graph and lowers consistency for it", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 8 }),
        fc.array(observation, { maxLength: 3 }),
        hypothesis,
        fc.constantFrom(...nodes),
        fc.constantFrom(...nodes),
        (facts, observations, candidate, s, o) => {
          const graph = { facts: [...facts, { subject: s, predicate: "q", object: o }] };
          const clean = scoreHypothesis(graph, observations, candidate);
          const contradicting: Hypothesis = {
            ...candidate,
            additions: [...candidate.additions, { subject: s, predicate: "not_q", object: o }],
          };
          const withContradiction = scoreHypothesis(graph, observations, contradicting);
          expect(withContradiction.contradictions.length).toBeGreaterThan(0);
          expect(withContradiction.consistency).toBeLessThan(1);
          expect(withContradiction.consistency).toBeLessThanOrEqual(clean.consistency);
        },
      ),
    );
  });

  it("prefers the simpler of two hypotheses that explain the same", () => {
    const facts: Fact[] = [
      { subject: "fever", predicate: "observed_in", object: "patient" },
      { subject: "rash", predicate: "observed_in", object: "patient" },
    ];
    const observations = [{ entities: ["fever"] }, { entities: ["rash"] }];
    const simple: Hypothesis = {
      name: "measles",
      additions: [
        { subject: "measles", predicate: "causes", object: "fever" },
        { subject: "measles", predicate: "causes", object: "rash" },
      ],
      newEntities: ["measles"],
    };
    const complex: Hypothesis = {
      name: "two infections",
      additions: [
        { subject: "flu", predicate: "causes", object: "fever" },
        { subject: "allergy", predicate: "causes", object: "rash" },
      ],
      newEntities: ["flu", "allergy"],
    };
    const contradicting: Hypothesis = {
      name: "contradiction",
      additions: [{ subject: "fever", predicate: "not_observed_in", object: "patient" }],
      newEntities: [],
    };
    const ranked = rankHypotheses({ facts }, observations, [complex, contradicting, simple]);
    expect(ranked.map((item) => item.name)).toEqual(["measles", "two infections", "contradiction"]);
    expect(ranked[0]?.coverage).toBe(1);
    expect(ranked[2]?.consistency).toBe(0);
  });

  it("ranks the same whatever the order of the hypotheses", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 8 }),
        fc.array(observation, { maxLength: 3 }),
        fc.uniqueArray(hypothesis, { minLength: 1, maxLength: 3, selector: (item) => item.name }),
        (facts, observations, hypotheses) => {
          const forward = rankHypotheses({ facts }, observations, hypotheses).map((item) => item.name);
          const backward = rankHypotheses({ facts }, observations, [...hypotheses].reverse()).map((item) => item.name);
          expect(backward).toEqual(forward);
        },
      ),
    );
  });

  it("gives nothing for a hypothesis that only restates the graph", () => {
    const facts: Fact[] = [{ subject: "a", predicate: "p", object: "b" }];
    const score = scoreHypothesis({ facts }, [{ entities: ["a"] }], {
      name: "same",
      additions: facts,
      newEntities: [],
    });
    expect(score).toMatchObject({ score: 0, coverage: 0, newElements: 0 });
  });
});

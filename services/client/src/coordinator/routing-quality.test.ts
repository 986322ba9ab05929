import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LabelledQuery, routingLabelledSet } from "../../test/support/routing-labelled-set.ts";
import { analyzeQuery } from "./heuristics.ts";
import { defaultPolicy } from "./policy.ts";
import { decideRoute, shouldEscalate } from "./routing.ts";
import { selectReasoningType } from "./type-selection.ts";

// The default policy table measured on a labelled set of queries (test/support/routing-labelled-set.ts): explicit
// reasoning requests must go to reasoning (route "direct"), ordinary chat must stay with the standard model unless
// its answer is a refusal. Precision and recall of "goes to reasoning" are computed and held above floors.

const all = ["inductive", "deductive", "abductive", "planAndExecuteCoT"];

function routeOf(entry: LabelledQuery) {
  return decideRoute(analyzeQuery(entry.query, {}, defaultPolicy), defaultPolicy).route;
}

/** Precision and recall of the policy on the set, with the misrouted queries named. */
function measure(set: readonly LabelledQuery[]) {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  const misrouted: string[] = [];
  for (const entry of set) {
    const toReasoning = routeOf(entry) === "direct";
    if (toReasoning && entry.reason) truePositives += 1;
    else if (toReasoning) {
      falsePositives += 1;
      misrouted.push(`false positive: ${entry.query}`);
    } else if (entry.reason) {
      falseNegatives += 1;
      misrouted.push(`false negative: ${entry.query}`);
    }
  }
  const precision = truePositives / Math.max(1, truePositives + falsePositives);
  const recall = truePositives / Math.max(1, truePositives + falseNegatives);
  return { precision, recall, truePositives, falsePositives, falseNegatives, misrouted };
}

describe("the routing policy on the labelled set", () => {
  it("has at least 50 queries, both kinds, no duplicates", () => {
    expect(routingLabelledSet.length).toBeGreaterThanOrEqual(50);
    expect(routingLabelledSet.filter((entry) => entry.reason).length).toBeGreaterThanOrEqual(20);
    expect(routingLabelledSet.filter((entry) => !entry.reason).length).toBeGreaterThanOrEqual(20);
    expect(new Set(routingLabelledSet.map((entry) => entry.query)).size).toBe(routingLabelledSet.length);
  });

  it("sends explicit reasoning requests to reasoning and keeps chat standard: precision >= 0.9, recall >= 0.9", () => {
    const result = measure(routingLabelledSet);
    // The figures, for the README and the report (vitest prints them with --reporter=verbose).
    console.info(
      `routing on ${routingLabelledSet.length} labelled queries: precision ${result.precision.toFixed(3)}, recall ${result.recall.toFixed(3)}\n${result.misrouted.join("\n")}`,
    );
    expect(result.precision).toBeGreaterThanOrEqual(0.9);
    expect(result.recall).toBeGreaterThanOrEqual(0.9);
  });

  it("the README's example reaches reasoning, as an abductive question", () => {
    const analysis = analyzeQuery("Why did last night's deploy fail?", {}, defaultPolicy);
    expect(decideRoute(analysis, defaultPolicy).route).toBe("direct");
    expect(
      selectReasoningType(
        { query: "Why did last night's deploy fail?", score: analysis.score, supported: all },
        defaultPolicy,
      ).type,
    ).toBe("abductive");
  });

  it("picks the labelled reasoning type for most reasoning queries (>= 0.8)", () => {
    const typed = routingLabelledSet.filter((entry) => entry.reason && entry.type);
    const right = typed.filter((entry) => {
      const analysis = analyzeQuery(entry.query, {}, defaultPolicy);
      return (
        selectReasoningType({ query: entry.query, score: analysis.score, supported: all }, defaultPolicy).type ===
        entry.type
      );
    });
    expect(right.length / typed.length).toBeGreaterThanOrEqual(0.8);
  });

  it("every chat query but small talk tries the standard model first and escalates on a refusal (standard first, escalate on refusal)", () => {
    for (const entry of routingLabelledSet.filter((candidate) => !candidate.reason)) {
      const analysis = analyzeQuery(entry.query, {}, defaultPolicy);
      const route = decideRoute(analysis, defaultPolicy).route;
      if (analysis.smallTalk) {
        expect(route, entry.query).toBe("standard");
        continue;
      }
      expect(["tiered", "direct"], entry.query).toContain(route);
      expect(shouldEscalate({ text: "I cannot answer that." }, defaultPolicy).escalate).toBe(true);
    }
  });
});

describe("the policy on any text", () => {
  it("scores in [0, 1], deterministically; routes direct exactly at the threshold; standard only for small talk", () => {
    const words = fc.constantFrom(
      "why",
      "did",
      "the",
      "deploy",
      "fail",
      "plan",
      "a",
      "compare",
      "vs",
      "thanks",
      "Alice",
      "Bob",
      "?",
      "decide",
      "whether",
      "or",
      "should",
      "we",
      "ok",
      "hi",
    );
    const query = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.array(words, { maxLength: 30 }).map((parts) => parts.join(" ")),
    );
    fc.assert(
      fc.property(query, (text) => {
        const analysis = analyzeQuery(text, {}, defaultPolicy);
        expect(analyzeQuery(text, {}, defaultPolicy)).toEqual(analysis);
        expect(analysis.score).toBeGreaterThanOrEqual(0);
        expect(analysis.score).toBeLessThanOrEqual(1);
        const route = decideRoute(analysis, defaultPolicy).route;
        if (analysis.smallTalk) expect(route).toBe("standard");
        else expect(route).toBe(analysis.score >= defaultPolicy.thresholds.direct ? "direct" : "tiered");
      }),
      { numRuns: 300 },
    );
  });
});

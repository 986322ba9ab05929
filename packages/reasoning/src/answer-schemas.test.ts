import { biasTypes, formalFallacyTypes, informalFallacyTypes } from "@deliberate/contracts";
import type { ModeDefinition } from "@deliberate/engine";
import { measureSchemaAcceptance } from "@deliberate/engine/testing";
import { describe, expect, it } from "vitest";
import { createRouterMode } from "./tools/auto/auto.mode.ts";
import { createCausalMappingMode, createCausalProposalMode, narrativeMode, type ProposalAnswer } from "./tools/counterfactual/counterfactual.mode.ts";
import { createPairwiseMode, createScoringMode, createStakeholderMode } from "./tools/decision/decision.mode.ts";
import { createDetectMode } from "./tools/detect/detect.mode.ts";
import { perspectiveMode, synthesisMode } from "./tools/divergent/divergent.mode.ts";
import { createAssessmentMode, createLikelihoodMode } from "./tools/evidence/evidence.mode.ts";
import { graphAggregateMode, graphContinuationMode, graphFinalizeMode, graphRefineMode, graphScoreMode } from "./tools/graph/graph.mode.ts";
import { linearMode } from "./tools/linear/linear.mode.ts";
import { mctsEvaluationMode, mctsExpansionMode } from "./tools/mcts/mcts.mode.ts";
import { critiqueMode, evaluationMode, revisionMode } from "./tools/reflection/reflection.mode.ts";
import { createTimelineCompareMode, createTimelineMergeMode, timelineBranchMode } from "./tools/timeline/timeline.mode.ts";
import { treeMode } from "./tools/tree/tree.mode.ts";

/**
 * Every mode's answer schema against its validator: random answers valid
 * against the JSON Schema the model is given must all be accepted. Where a
 * rule is beyond JSON Schema (it relates one part of the answer to another,
 * or compares names ignoring case), the rule is listed with the mode and every
 * rejected answer must break it. PRINT_SCHEMA_ACCEPTANCE=1 prints the rates.
 */

interface Case {
  label: string;
  mode: ModeDefinition<never, unknown>;
  /** Rules the validator enforces that JSON Schema cannot express; a rejected answer must break one. */
  remainder?: { rules: string[]; broken: (answer: unknown) => boolean };
}

const options = ["Postgres", "SQLite", "DuckDB"];
const scoring = (overrides: Partial<Parameters<typeof createScoringMode>[0]>) =>
  createScoringMode({ type: "weighted", question: "Which database?", context: undefined, options, criteria: undefined, needImportance: true, needScores: true, needDirection: [], ...overrides });
const pairs = (count: number) => {
  const list: Array<readonly [number, number]> = [];
  for (let i = 0; i < count; i += 1) for (let j = i + 1; j < count; j += 1) list.push([i, j]);
  return list;
};
const evidence = [{ content: "benchmark" }, { content: "blog" }, { content: "log line", source_type: "primary" as const }];

/** Keys that collide once trimmed and lower-cased. */
function namesCollide(record: unknown): boolean {
  const names = Object.keys((record ?? {}) as Record<string, unknown>).map((name) => name.trim().toLowerCase());
  return new Set(names).size !== names.length;
}

const nameRule = "names differ ignoring case and surrounding spaces (JSON Schema compares property names exactly)";

/** A causal model's cross-references: ends among the variables, no self-loops or repeated pairs, no cycle. */
function causalModelBroken(answer: unknown, needsTarget: boolean): boolean {
  const { variables, relationships, intervention_target } = answer as ProposalAnswer;
  const known = new Set(variables);
  if (needsTarget && !known.has(intervention_target?.variable ?? "")) return true;
  const pairsSeen = new Set<string>();
  for (const relationship of relationships) {
    if (!known.has(relationship.cause) || !known.has(relationship.effect) || relationship.cause === relationship.effect) return true;
    const key = `${relationship.cause}\u0000${relationship.effect}`;
    if (pairsSeen.has(key)) return true;
    pairsSeen.add(key);
  }
  // Cycle: repeatedly remove variables with no incoming link.
  let remaining = [...relationships];
  let removed = true;
  const alive = new Set(variables);
  while (removed) {
    removed = false;
    for (const variable of [...alive]) {
      if (!remaining.some((relationship) => relationship.effect === variable)) {
        alive.delete(variable);
        remaining = remaining.filter((relationship) => relationship.cause !== variable);
        removed = true;
      }
    }
  }
  return alive.size > 0;
}

const causalRules = [
  "each relationship's cause and effect are among the listed variables (JSON Schema cannot refer from one value to another array's items)",
  "a proposed intervention_target.variable is among the listed variables (same reason)",
  "no self-loop and each cause -> effect pair once (uniqueItems compares whole items, strengths included)",
  "the relationships form no cycle (a graph property, not a property of any one value)",
];

const cases: Case[] = [
  { label: "linear_continuation", mode: linearMode as never },
  { label: "tree_branches", mode: treeMode as never },
  { label: "divergent_perspective", mode: perspectiveMode as never },
  { label: "divergent_synthesis", mode: synthesisMode as never },
  { label: "reflection_critique", mode: critiqueMode as never },
  { label: "reflection_revision", mode: revisionMode as never },
  { label: "reflection_session_evaluation", mode: evaluationMode as never },
  { label: "auto_route", mode: createRouterMode(["linear", "tree", "divergent", "reflection", "graph", "timeline", "mcts", "counterfactual"]) as never },
  { label: "graph_continuation", mode: graphContinuationMode as never },
  { label: "graph_score", mode: graphScoreMode as never },
  { label: "graph_aggregate", mode: graphAggregateMode as never },
  { label: "graph_refine", mode: graphRefineMode as never },
  { label: "graph_finalize", mode: graphFinalizeMode as never },
  { label: "mcts_expand", mode: mctsExpansionMode as never },
  { label: "mcts_evaluate", mode: mctsEvaluationMode as never },
  { label: "timeline_branch", mode: timelineBranchMode as never },
  { label: "timeline_compare", mode: createTimelineCompareMode(["tb_1", "tb_2", "tb_3"]) as never },
  { label: "timeline_merge_synthesize", mode: createTimelineMergeMode("synthesize") as never },
  { label: "timeline_merge_prefer_source", mode: createTimelineMergeMode("prefer_source") as never },
  { label: "detect_biases", mode: createDetectMode("biases", biasTypes) as never },
  { label: "detect_fallacies (two types)", mode: createDetectMode("fallacies", [formalFallacyTypes[0], informalFallacyTypes[0]] as string[]) as never },
  {
    label: "decision_scores (criteria proposed)",
    mode: scoring({}) as never,
    remainder: { rules: [`proposed criterion ${nameRule}`], broken: (answer) => namesCollide((answer as { criteria: unknown }).criteria) },
  },
  {
    label: "decision_scores (criteria given, weights and one direction missing)",
    mode: scoring({ criteria: [{ name: "cost", direction: "cost" }, { name: "speed" }], needDirection: ["speed"] }) as never,
  },
  { label: "decision_scores (weights given: scores only)", mode: scoring({ type: "topsis", criteria: [{ name: "cost", weight: 2, direction: "cost" }, { name: "speed", weight: 1 }], needImportance: false, needDirection: ["speed"] }) as never },
  { label: "decision_pairwise (3 options)", mode: createPairwiseMode({ question: "q", context: undefined, options, criteria: undefined, pairs: pairs(3) }) as never },
  { label: "decision_pairwise (5 options)", mode: createPairwiseMode({ question: "q", context: undefined, options: ["a", "b", "c", "d", "e"], criteria: undefined, pairs: pairs(5) }) as never },
  {
    label: "decision_stakeholders (proposed)",
    mode: createStakeholderMode({ topic: "t", context: undefined, options: undefined, stakeholders: undefined, missingLevels: [] }) as never,
    remainder: { rules: [`proposed stakeholder ${nameRule}`], broken: (answer) => namesCollide((answer as { stakeholders: unknown }).stakeholders) },
  },
  {
    label: "decision_stakeholders (levels missing)",
    mode: createStakeholderMode({ topic: "t", context: undefined, options: undefined, stakeholders: [{ name: "Ops", power_level: 0.4 }, { name: "CFO" }, { name: "Users", power_level: 0.1, interest_level: 0.9 }], missingLevels: ["Ops", "CFO"] }) as never,
  },
  { label: "evidence_likelihoods (prior and two items)", mode: createLikelihoodMode({ hypothesis: "h", context: undefined, prior: undefined, evidence, items: [0, 2] }) as never },
  { label: "evidence_likelihoods (one item)", mode: createLikelihoodMode({ hypothesis: "h", context: undefined, prior: 0.3, evidence, items: [1] }) as never },
  { label: "evidence_assessment (items 0 and 2 of 3)", mode: createAssessmentMode({ claim: "c", context: undefined, evidence, items: [0, 2] }) as never },
  { label: "evidence_assessment (one item alone)", mode: createAssessmentMode({ claim: "c", context: undefined, evidence: [{ content: "only" }], items: [0] }) as never },
  {
    label: "counterfactual_causal_model (target proposed)",
    mode: createCausalProposalMode({ scenario: "s", intervention: "i", depth: "intervention", target: undefined, observed: [] }) as never,
    remainder: { rules: causalRules, broken: (answer) => causalModelBroken(answer, true) },
  },
  {
    label: "counterfactual_causal_model (target and observed given)",
    mode: createCausalProposalMode({ scenario: "s", intervention: "i", depth: "counterfactual", target: { variable: "price", change: 2 }, observed: ["demand"] }) as never,
    remainder: { rules: causalRules.filter((rule) => !rule.includes("proposed intervention_target")), broken: (answer) => causalModelBroken(answer, false) },
  },
  {
    label: "counterfactual_mapping",
    mode: createCausalMappingMode({ scenario: "s", intervention: "i", variables: ["a", "b", "c"], relationships: [{ cause: "a", effect: "b" }, { cause: "b", effect: "c", strength: 1 }, { cause: "a", effect: "c" }], missingStrengths: [0, 2], needTarget: true }) as never,
  },
  { label: "counterfactual_narrative", mode: narrativeMode as never },
];

const rates: Array<[string, string]> = [];

describe("answer schemas are as strict as their validators", () => {
  it.each(cases)("$label", async ({ label, mode, remainder }) => {
    const result = await measureSchemaAcceptance(mode.output, { samples: 150, seed: 7 });
    rates.push([label, `${result.accepted}/${result.generated} (${(result.rate * 100).toFixed(1)}%)${remainder ? ` — beyond JSON Schema: ${remainder.rules.join("; ")}` : ""}`]);
    expect(result.generated).toBe(150);
    if (remainder === undefined) {
      expect(result.rejected.slice(0, 3)).toEqual([]);
    } else {
      // Every answer the validator rejects breaks one of the listed rules: nothing else is missing from the schema.
      const unexplained = result.rejected.filter((sample) => !remainder.broken(sample.answer));
      expect(unexplained.slice(0, 3)).toEqual([]);
    }
  });

  it("prints the acceptance rates when asked", () => {
    if (process.env["PRINT_SCHEMA_ACCEPTANCE"]) console.info(rates.map(([label, rate]) => `${label}: ${rate}`).join("\n"));
    expect(rates).toHaveLength(cases.length);
  });
});

import { biasTypes, formalFallacyTypes, informalFallacyTypes } from "@deliberate/contracts";
import type { ModeDefinition } from "@deliberate/engine";
import { measureSchemaAcceptance } from "@deliberate/engine/testing";
import { describe, expect, it } from "vitest";
import { createRouterMode } from "./tools/auto/auto.mode.ts";
import {
  createCausalLinksMode,
  createCausalMappingMode,
  createCausalVariablesMode,
  narrativeMode,
} from "./tools/counterfactual/counterfactual.mode.ts";
import { createPairwiseMode, createScoringMode, createStakeholderMode } from "./tools/decision/decision.mode.ts";
import { createDetectMode } from "./tools/detect/detect.mode.ts";
import { perspectiveMode, synthesisMode } from "./tools/divergent/divergent.mode.ts";
import { createAssessmentMode, createLikelihoodMode } from "./tools/evidence/evidence.mode.ts";
import {
  graphAggregateMode,
  graphContinuationMode,
  graphFinalizeMode,
  graphRefineMode,
  graphScoreMode,
} from "./tools/graph/graph.mode.ts";
import { linearMode } from "./tools/linear/linear.mode.ts";
import { mctsEvaluationMode, mctsExpansionMode } from "./tools/mcts/mcts.mode.ts";
import { critiqueMode, evaluationMode, revisionMode } from "./tools/reflection/reflection.mode.ts";
import {
  createTimelineCompareMode,
  createTimelineMergeMode,
  timelineBranchMode,
} from "./tools/timeline/timeline.mode.ts";
import { treeMode } from "./tools/tree/tree.mode.ts";

/**
 * Every mode's answer schema against its validator: random answers valid
 * against the JSON Schema the model is given must all be accepted, so
 * following the schema is enough (no rule relates one part of an answer to
 * another; what JSON Schema cannot tell apart is normalised, not refused).
 * PRINT_SCHEMA_ACCEPTANCE=1 prints the rates.
 */

interface Case {
  label: string;
  mode: ModeDefinition<never, unknown>;
}

const options = ["Postgres", "SQLite", "DuckDB"];
const scoring = (overrides: Partial<Parameters<typeof createScoringMode>[0]>) =>
  createScoringMode({
    type: "weighted",
    question: "Which database?",
    context: undefined,
    options,
    criteria: undefined,
    needImportance: true,
    needScores: true,
    needDirection: [],
    ...overrides,
  });
const pairs = (count: number) => {
  const list: Array<readonly [number, number]> = [];
  for (let i = 0; i < count; i += 1) for (let j = i + 1; j < count; j += 1) list.push([i, j]);
  return list;
};
const evidence = [
  { content: "benchmark" },
  { content: "blog" },
  { content: "log line", source_type: "primary" as const },
];

const cases: Case[] = [
  { label: "linear_continuation", mode: linearMode as never },
  { label: "tree_branches", mode: treeMode as never },
  { label: "divergent_perspective", mode: perspectiveMode as never },
  { label: "divergent_synthesis", mode: synthesisMode as never },
  { label: "reflection_critique", mode: critiqueMode as never },
  { label: "reflection_revision", mode: revisionMode as never },
  { label: "reflection_session_evaluation", mode: evaluationMode as never },
  {
    label: "auto_route",
    mode: createRouterMode([
      "linear",
      "tree",
      "divergent",
      "reflection",
      "graph",
      "timeline",
      "mcts",
      "counterfactual",
    ]) as never,
  },
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
  {
    label: "detect_fallacies (two types)",
    mode: createDetectMode("fallacies", [formalFallacyTypes[0], informalFallacyTypes[0]] as string[]) as never,
  },
  { label: "decision_scores (criteria proposed)", mode: scoring({}) as never },
  {
    label: "decision_scores (criteria given, weights and one direction missing)",
    mode: scoring({
      criteria: [{ name: "cost", direction: "cost" }, { name: "speed" }],
      needDirection: ["speed"],
    }) as never,
  },
  {
    label: "decision_scores (weights given: scores only)",
    mode: scoring({
      type: "topsis",
      criteria: [
        { name: "cost", weight: 2, direction: "cost" },
        { name: "speed", weight: 1 },
      ],
      needImportance: false,
      needDirection: ["speed"],
    }) as never,
  },
  {
    label: "decision_pairwise (3 options)",
    mode: createPairwiseMode({
      question: "q",
      context: undefined,
      options,
      criteria: undefined,
      pairs: pairs(3),
    }) as never,
  },
  {
    label: "decision_pairwise (5 options)",
    mode: createPairwiseMode({
      question: "q",
      context: undefined,
      options: ["a", "b", "c", "d", "e"],
      criteria: undefined,
      pairs: pairs(5),
    }) as never,
  },
  {
    label: "decision_stakeholders (proposed)",
    mode: createStakeholderMode({
      topic: "t",
      context: undefined,
      options: undefined,
      stakeholders: undefined,
      missingLevels: [],
    }) as never,
  },
  {
    label: "decision_stakeholders (levels missing)",
    mode: createStakeholderMode({
      topic: "t",
      context: undefined,
      options: undefined,
      stakeholders: [
        { name: "Ops", power_level: 0.4 },
        { name: "CFO" },
        { name: "Users", power_level: 0.1, interest_level: 0.9 },
      ],
      missingLevels: ["Ops", "CFO"],
    }) as never,
  },
  {
    label: "evidence_likelihoods (prior and two items)",
    mode: createLikelihoodMode({
      hypothesis: "h",
      context: undefined,
      prior: undefined,
      evidence,
      items: [0, 2],
    }) as never,
  },
  {
    label: "evidence_likelihoods (one item)",
    mode: createLikelihoodMode({ hypothesis: "h", context: undefined, prior: 0.3, evidence, items: [1] }) as never,
  },
  {
    label: "evidence_assessment (items 0 and 2 of 3)",
    mode: createAssessmentMode({ claim: "c", context: undefined, evidence, items: [0, 2] }) as never,
  },
  {
    label: "evidence_assessment (one item alone)",
    mode: createAssessmentMode({
      claim: "c",
      context: undefined,
      evidence: [{ content: "only" }],
      items: [0],
    }) as never,
  },
  {
    label: "counterfactual_variables (target proposed)",
    mode: createCausalVariablesMode({
      scenario: "s",
      intervention: "i",
      depth: "intervention",
      target: undefined,
      observed: [],
    }) as never,
  },
  {
    label: "counterfactual_variables (target and observed given)",
    mode: createCausalVariablesMode({
      scenario: "s",
      intervention: "i",
      depth: "counterfactual",
      target: { variable: "price", change: 2 },
      observed: ["demand", "price"],
    }) as never,
  },
  {
    label: "counterfactual_variables (12 observed: no room for others)",
    mode: createCausalVariablesMode({
      scenario: "s",
      intervention: "i",
      depth: "association",
      target: undefined,
      observed: Array.from({ length: 12 }, (_, index) => `v${index}`),
    }) as never,
  },
  {
    label: "counterfactual_links (three levels)",
    mode: createCausalLinksMode({
      scenario: "s",
      intervention: "i",
      variables: [
        { name: "demand", level: 0 },
        { name: "price", level: 0 },
        { name: "volume", level: 1 },
        { name: "revenue", level: 2 },
      ],
    }) as never,
  },
  {
    label: "counterfactual_mapping",
    mode: createCausalMappingMode({
      scenario: "s",
      intervention: "i",
      variables: ["a", "b", "c"],
      relationships: [
        { cause: "a", effect: "b" },
        { cause: "b", effect: "c", strength: 1 },
        { cause: "a", effect: "c" },
      ],
      missingStrengths: [0, 2],
      needTarget: true,
    }) as never,
  },
  { label: "counterfactual_narrative", mode: narrativeMode as never },
];

const rates: Array<[string, string]> = [];

describe("answer schemas are as strict as their validators", () => {
  it.each(cases)("$label", async ({ label, mode }) => {
    const result = await measureSchemaAcceptance(mode.output, { samples: 150, seed: 7 });
    rates.push([label, `${result.accepted}/${result.generated} (${(result.rate * 100).toFixed(1)}%)`]);
    expect(result.generated).toBe(150);
    expect(result.rejected.slice(0, 3)).toEqual([]);
  });

  it("prints the acceptance rates when asked", () => {
    if (process.env["PRINT_SCHEMA_ACCEPTANCE"])
      console.info(rates.map(([label, rate]) => `${label}: ${rate}`).join("\n"));
    expect(rates).toHaveLength(cases.length);
  });
});

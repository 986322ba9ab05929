import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `graph` mode and its default model settings, declared on every `graph` definition (the engine layers configuration and runtime overrides on top). */
export const graphModeDeclaration: ModeDeclaration = {
  mode: "graph",
  settings: { temperature: 0.7, maxTokens: 2500, thinkingBudget: 4096, stream: true },
};

/**
 * The four judgements a node is scored on; the node's score is their mean,
 * computed in code (see graphScore in the graph handler).
 */
export const graphCriteriaSchema = lazySchema(() =>
  z.object({
    relevance: z.number().min(0).max(1).describe("How directly it advances the problem, 0..1"),
    validity: z.number().min(0).max(1).describe("Whether the reasoning is logically and factually sound, 0..1"),
    depth: z.number().min(0).max(1).describe("How much non-obvious insight it adds, 0..1"),
    novelty: z.number().min(0).max(1).describe("How different it is from the steps before it, 0..1"),
  }),
);
export type GraphCriteria = z.infer<typeof graphCriteriaSchema>;

const scoringRubric =
  "Score each criterion from 0 to 1 honestly: relevance (advances the problem), validity (sound logic and facts), depth (non-obvious insight), novelty (not a rewording of earlier steps). 0.5 is ordinary; do not inflate.";

/**
 * Directions handed to the k concurrent continuation calls so they diverge
 * instead of producing k rewordings of the same step.
 */
export const continuationDirections = [
  "deepen: take the most promising next logical step",
  "challenge: question an assumption of the current step and reason from that doubt",
  "alternative: attack the same sub-problem with a different approach",
  "concretise: apply the idea to a specific case or example and see what happens",
  "generalise: abstract it into a principle that covers more cases",
  "decompose: split what remains into sub-problems and solve the first",
  "evidence: what would confirm or refute this, and what follows from each outcome",
  "risk: find the main failure mode and how to avoid it",
  "connect: relate it to another part of the problem that has not been used yet",
  "simplify: find the simplest version that still works",
] as const;

/** Renders the path from the root to a node for a prompt (root first). */
export function formatLineage(problem: string | null, lineage: readonly string[], charactersPerStep = 1200): string {
  const steps = lineage.map((content, index) => {
    const text = content.length > charactersPerStep ? `${content.slice(0, charactersPerStep)}…` : content;
    return `${index === 0 ? "Root" : `Step ${index}`}: ${text}`;
  });
  return `${problem ? `Problem: ${problem}\n\n` : ""}Path from the root of the graph:\n${steps.join("\n")}`;
}

export const continuationAnswerSchema = lazySchema(() =>
  z.object({
    content: z.string().min(1).describe("The new thought: one concrete reasoning step that continues the path"),
    criteria: graphCriteriaSchema,
  }),
);

export const graphContinuationMode = defineMode({
  ...graphModeDeclaration,
  name: "graph_continuation",
  description: "One new thought continuing a path of a graph of thoughts, with its criteria scores.",
  system: [
    "You extend a graph of thoughts for another AI agent. You are given the path from the root to one node and a direction.",
    "Write one new thought that continues that path in the given direction: a concrete reasoning step, not a summary of earlier steps.",
    scoringRubric,
  ].join("\n"),
  prompt: (input: { path: string; direction: string; index: number; count: number }) =>
    `${input.path}\n\nWrite continuation ${input.index + 1} of ${input.count}. Direction: ${input.direction}.`,
  output: continuationAnswerSchema,
});

export const scoreAnswerSchema = lazySchema(() =>
  z.object({
    criteria: graphCriteriaSchema,
    rationale: z.string().min(1).describe("One or two sentences justifying the scores"),
  }),
);

export const graphScoreMode = defineMode({
  ...graphModeDeclaration,
  name: "graph_score",
  description: "Criteria scores for one thought of a graph of thoughts.",
  system: [
    "You evaluate one thought in a graph of thoughts written by another AI agent, in the context of the path that led to it.",
    scoringRubric,
  ].join("\n"),
  prompt: (input: { path: string; content: string }) => `${input.path}\n\nThought to evaluate:\n${input.content}`,
  output: scoreAnswerSchema,
});

export const aggregateAnswerSchema = lazySchema(() =>
  z.object({
    insight: z
      .string()
      .min(1)
      .describe(
        "One unified thought that combines what is strongest in the given thoughts and resolves their tensions",
      ),
    criteria: graphCriteriaSchema,
  }),
);

export const graphAggregateMode = defineMode({
  ...graphModeDeclaration,
  name: "graph_aggregate",
  description: "A unified insight merging several thoughts of a graph of thoughts, with its criteria scores.",
  system: [
    "You merge several thoughts from a graph of thoughts into one unified insight for another AI agent.",
    "Keep what is strongest in each, resolve contradictions explicitly, and say what follows. Do not just list them.",
    scoringRubric,
  ].join("\n"),
  prompt: (input: { problem: string | null; thoughts: readonly string[] }) =>
    [
      input.problem ? `Problem: ${input.problem}\n` : "",
      "Thoughts to merge:",
      ...input.thoughts.map((thought, index) => `${index + 1}. ${thought}`),
    ].join("\n"),
  output: aggregateAnswerSchema,
});

export const refineAnswerSchema = lazySchema(() =>
  z.object({
    critique: z.string().min(1).describe("What is weak or missing in the thought"),
    refined_content: z.string().min(1).describe("The thought rewritten to fix the critique"),
    criteria: graphCriteriaSchema.describe("Scores of the refined thought"),
  }),
);

export const graphRefineMode = defineMode({
  ...graphModeDeclaration,
  name: "graph_refine",
  description: "A self-critique of one thought and its improved version, with criteria scores.",
  system: [
    "You improve one thought of a graph of thoughts for another AI agent by self-critique.",
    "First say concretely what is weak or missing, then rewrite the thought so those weaknesses are fixed, keeping its direction.",
    `Score the rewritten thought. ${scoringRubric}`,
  ].join("\n"),
  prompt: (input: { path: string; content: string }) => `${input.path}\n\nThought to refine:\n${input.content}`,
  output: refineAnswerSchema,
});

export const finalizeAnswerSchema = lazySchema(() =>
  z.object({
    conclusions: z
      .array(z.string().min(1))
      .min(1)
      .describe("The conclusions the reasoning supports, most important first"),
  }),
);

export const graphFinalizeMode = defineMode({
  ...graphModeDeclaration,
  name: "graph_finalize",
  description: "Conclusions extracted from the terminal thoughts of a graph of thoughts.",
  system: [
    "You close a graph of thoughts for another AI agent. You are given its terminal thoughts, each with the path that led to it.",
    "State the conclusions the reasoning actually supports, most important first; each one self-contained and specific. Do not invent support the paths do not give.",
  ].join("\n"),
  prompt: (input: { problem: string | null; paths: readonly string[] }) =>
    [
      input.problem ? `Problem: ${input.problem}\n` : "",
      ...input.paths.map((path, index) => `Terminal thought ${index + 1}:\n${path}\n`),
    ].join("\n"),
  output: finalizeAnswerSchema,
});

import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `timeline` mode and its default model settings, declared on every `timeline` definition (the engine layers configuration and runtime overrides on top). */
export const timelineModeDeclaration: ModeDeclaration = {
  mode: "timeline",
  settings: { temperature: 0.7, maxTokens: 2500 },
};

export const timelineBranchAnswerSchema = lazySchema(() =>
  z.object({
    label: z.string().min(1).max(80).describe("A short name for the alternative path"),
    content: z.string().min(1).describe("How events unfold along the alternative path, from the fork onward"),
  }),
);

/** Used when `branch` is called without content: the model proposes the alternative path. */
export const timelineBranchMode = defineMode({
  ...timelineModeDeclaration,
  name: "timeline_branch",
  description: "An alternative path forking from a point on a timeline.",
  system: [
    "You explore alternative timelines for another AI agent. You are given the path of a timeline up to a fork point.",
    "Propose one plausible alternative path from that point: what changes, and how events then unfold step by step. It must genuinely differ from the existing path, not restate it.",
  ].join("\n"),
  prompt: (input: { lineage: string; existing: readonly string[] }) =>
    [
      input.lineage,
      input.existing.length > 0
        ? `\nBranches that already fork from this point (do not repeat them):\n${input.existing.map((label) => `- ${label}`).join("\n")}`
        : "",
    ].join("\n"),
  output: timelineBranchAnswerSchema,
});

/** The compare answer asks for one assessment per branch, keyed by branch id, so none can be skipped. */
export function timelineCompareAnswerSchema(branchIds: readonly string[]) {
  const assessment = z.object({
    quality: z.number().min(0).max(1).describe("How plausible, coherent and useful this path is, 0..1"),
    assessment: z.string().min(1).describe("One or two sentences on its strengths and weaknesses"),
  });
  return z.object({
    divergence_points: z.array(z.string().min(1)).describe("Where and how the paths part ways, in the narrative"),
    assessments: z.object(Object.fromEntries(branchIds.map((id) => [id, assessment]))),
    convergence_opportunities: z.array(z.string()).describe("Where the paths could be reconciled or combined"),
  });
}

export interface TimelineCompareBranch {
  id: string;
  label: string;
  content: string;
}

/** Built per call for the branches being compared. */
export function createTimelineCompareMode(branchIds: readonly string[]) {
  return defineMode({
    ...timelineModeDeclaration,
    name: "timeline_compare",
    description: "Narrative divergence, per-branch quality and convergence opportunities of timeline branches.",
    system: [
      "You compare branches of a timeline for another AI agent. The structural facts (fork points, word overlap) were computed for you; do not recompute them.",
      "Describe where the narratives diverge, assess each branch's quality from 0 to 1 (plausibility, coherence, usefulness; 0.5 is ordinary), and name opportunities to reconcile or combine them.",
    ].join("\n"),
    prompt: (input: { branches: readonly TimelineCompareBranch[]; facts: readonly string[] }) =>
      [
        "Branches:",
        ...input.branches.map((branch) => `[${branch.id}] ${branch.label}:\n${branch.content}\n`),
        "Computed structure:",
        ...input.facts.map((fact) => `- ${fact}`),
        `\nAssess every branch by its id: ${branchIds.join(", ")}.`,
      ].join("\n"),
    output: timelineCompareAnswerSchema(branchIds),
  });
}

export type ModelMergeStrategy = "synthesize" | "prefer_source" | "prefer_target";

const mergeInstructions: Record<ModelMergeStrategy, string> = {
  synthesize:
    "Integrate both into one coherent account; where they conflict, resolve the conflict on the merits and say which side (or both) you kept.",
  prefer_source:
    "Keep everything that does not conflict from both; where they conflict, the SOURCE branch's version wins.",
  prefer_target:
    "Keep everything that does not conflict from both; where they conflict, the TARGET branch's version wins.",
};

/** What a conflict may resolve to under each strategy; the schema enforces the preference. */
const keptOptions: Record<ModelMergeStrategy, readonly [string, ...string[]]> = {
  synthesize: ["source", "target", "both"],
  prefer_source: ["source"],
  prefer_target: ["target"],
};

export function timelineMergeAnswerSchema(strategy: ModelMergeStrategy) {
  return z.object({
    merged_content: z.string().min(1).describe("The merged path"),
    conflicts: z
      .array(
        z.object({
          source: z.string().describe("What the source branch says"),
          target: z.string().describe("What the target branch says"),
          kept: z.enum(keptOptions[strategy] as [string, ...string[]]).describe("Which version the merge kept"),
        }),
      )
      .describe("Every point where the branches disagreed (empty if none)"),
  });
}

/** Built per call for the merge strategy (interleave needs no model). */
export function createTimelineMergeMode(strategy: ModelMergeStrategy) {
  return defineMode({
    ...timelineModeDeclaration,
    name: `timeline_merge_${strategy}`,
    description: "Two timeline branches merged into one, with the conflicts it resolved.",
    system: [
      "You merge two branches of a timeline (source into target) for another AI agent.",
      mergeInstructions[strategy],
      "List every conflict you resolved.",
    ].join("\n"),
    prompt: (input: { source: TimelineCompareBranch; target: TimelineCompareBranch }) =>
      `SOURCE branch "${input.source.label}":\n${input.source.content}\n\nTARGET branch "${input.target.label}":\n${input.target.content}`,
    output: timelineMergeAnswerSchema(strategy),
  });
}

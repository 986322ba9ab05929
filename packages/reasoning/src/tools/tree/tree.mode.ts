import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { lazySchema } from "@deliberate/contracts";

/** The `tree` mode and its default model settings, declared on every `tree` definition (the engine layers configuration and runtime overrides on top). */
export const treeModeDeclaration: ModeDeclaration = {
  mode: "tree",
  settings: { temperature: 0.8, maxTokens: 3000, stream: true },
};

export const treeAnswerSchema = lazySchema(() =>
  z.object({
    branches: z
      .array(
        z.object({
          content: z.string().min(1).describe("This path of reasoning: the approach and its first steps"),
          score: z.number().min(0).max(1).describe("How promising this path is, 0..1"),
        }),
      )
      .min(2)
      .max(4),
    recommendation: z.string().describe("Which path to explore first and why"),
  }),
);

export const treeMode = defineMode({
  ...treeModeDeclaration,
  name: "tree_branches",
  description: "Distinct paths of reasoning from the same starting point, each scored for promise.",
  system: [
    "You explore a problem along genuinely different paths of reasoning for another AI agent.",
    "Each path must take a different approach (not rewordings of one idea). For each, state the approach and its first concrete steps, then score how promising it is from 0 to 1.",
    "Then recommend which path to explore first and why.",
  ].join("\n"),
  prompt: (input: { content: string; count: number }) =>
    `Starting point:\n${input.content}\n\nProduce exactly ${input.count} distinct paths.`,
  output: treeAnswerSchema,
});

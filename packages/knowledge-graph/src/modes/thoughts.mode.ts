import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { tripleAnswerSchema } from "./schema-parts.ts";

/** The `knowledge_graph_thoughts` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const thoughtsModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_thoughts",
  settings: { temperature: 0.7, maxTokens: 2500 },
};

export interface ThoughtsInput {
  goal: string;
  graph: string;
  findings: string;
  /** The thoughts chosen so far, root first. */
  path: readonly string[];
  breadth: number;
}

export interface ThoughtsAnswer {
  thoughts: Array<{
    thought: string;
    supportingFacts: Array<{ subject: string; predicate: string; object: string }>;
    promise: number;
  }>;
}

/** Tree of thoughts: `breadth` alternative next thoughts from the current path, each rated; code scores and keeps the best. */
export function createThoughtsMode(
  names: readonly string[],
  breadth: number,
): ModeDefinition<ThoughtsInput, ThoughtsAnswer> {
  return defineMode<ThoughtsInput, ThoughtsAnswer>({
    ...thoughtsModeDeclaration,
    name: "knowledge_graph_thoughts",
    description: "Alternative next reasoning steps toward the answer, each with the graph facts it rests on",
    system:
      "You explore a tree of thoughts over a knowledge graph. Given the question and the thoughts chosen so far, propose distinct next thoughts: each one step of reasoning toward the answer, resting on facts of the graph (cite them exactly). Rate how promising each is for reaching a correct answer, 0 to 1. Make the alternatives genuinely different.",
    prompt: (input) =>
      [
        `Question: ${input.goal}`,
        "",
        "Knowledge graph (relevant part):",
        input.graph,
        "",
        "Findings of the reasoning steps:",
        input.findings || "(none)",
        "",
        input.path.length === 0
          ? "No thoughts chosen yet."
          : `Thoughts chosen so far:\n${input.path.map((thought, index) => `${index + 1}. ${thought}`).join("\n")}`,
        "",
        `Propose exactly ${input.breadth} next thoughts.`,
      ].join("\n"),
    output: z.object({
      thoughts: z
        .array(
          z.object({
            thought: z.string().min(1).max(600),
            supportingFacts: z.array(tripleAnswerSchema(names)).max(6),
            promise: z.number().min(0).max(1).describe("How promising, 0 to 1"),
          }),
        )
        .min(breadth)
        .max(breadth),
    }),
  });
}

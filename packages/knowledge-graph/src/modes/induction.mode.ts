import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { confidenceAnswerSchema, entityNameSchema, predicateAnswerSchema } from "./schema-parts.ts";

/** The `knowledge_graph_induce` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const inductionModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_induce",
  settings: { temperature: 0.5, maxTokens: 2500 },
};

export interface InductionInput {
  goal: string;
  purpose: string;
  graph: string;
  names: readonly string[];
}

export interface InductionAnswer {
  patterns: Array<{
    description: string;
    members: string[];
    sharedRelation: { predicate: string; object: string } | null;
    abstraction: { name: string; type: string; definition: string };
    memberRelation: string;
    confidence: number;
    reasoning: string;
  }>;
}

/** Inductive reasoning on the graph (spec §1.2.4 A): patterns across nodes become abstract nodes and relation types. */
export function createInductionMode(names: readonly string[]): ModeDefinition<InductionInput, InductionAnswer> {
  const name = entityNameSchema(names);
  return defineMode<InductionInput, InductionAnswer>({
    ...inductionModeDeclaration,
    name: "knowledge_graph_induction",
    description: "Patterns across entities of the graph, each generalised into a new abstract entity",
    system:
      "You are an analytical reasoner performing inductive reasoning on a knowledge graph. Inductive reasoning observes specific examples and forms a general rule or concept that likely explains them; its conclusions are probable, not certain. Based only on the graph given: identify commonalities or recurring relationship structures across several entities; formulate for each a new abstract concept (a new node) that generalises them, define it, and say how the members connect to it (a relation type such as instance_of or member_of). Prefer the simplest generalisation relevant to the goal. When the members share one relation to one entity, name it as sharedRelation.",
    prompt: (input) =>
      [
        `Goal: ${input.goal}`,
        `Focus: ${input.purpose}`,
        "",
        "Current knowledge graph (relevant part):",
        input.graph,
        "",
        "Identify 1 to 3 patterns, each with at least two member entities from the graph.",
      ].join("\n"),
    output: z.object({
      patterns: z
        .array(
          z.object({
            description: z.string().min(1).max(500).describe("The commonality observed"),
            members: z.array(name).min(2).max(12).describe("Entities that show the pattern"),
            sharedRelation: z
              .object({ predicate: predicateAnswerSchema, object: name })
              .nullable()
              .describe("The relation every member has to one entity, when that is the pattern; else null"),
            abstraction: z.object({
              name: z.string().min(1).max(120).describe("Name of the new abstract concept"),
              type: z.string().min(1).max(60),
              definition: z.string().min(1).max(500),
            }),
            memberRelation: predicateAnswerSchema.describe(
              "How each member relates to the abstraction, e.g. instance_of",
            ),
            confidence: confidenceAnswerSchema,
            reasoning: z
              .string()
              .min(1)
              .max(1000)
              .describe("Step by step, how the generalisation follows from the graph"),
          }),
        )
        .min(1)
        .max(3),
    }),
  });
}

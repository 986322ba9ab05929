import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { entityNameSchema, predicateAnswerSchema } from "./schema-parts.ts";

/** The `knowledge_graph_abduce` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const abductionModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_abduce",
  settings: { temperature: 0.6, maxTokens: 3000 },
};

export interface AbductionInput {
  goal: string;
  purpose: string;
  graph: string;
  names: readonly string[];
}

/**
 * A hypothesised relation. Each end is declared where it is used: a graph
 * entity by its listed name, or a new entity, whose type is given beside it.
 */
export interface HypothesisAddition {
  subject: string;
  subjectType: string;
  predicate: string;
  object: string;
  objectType: string;
}

export interface AbductionAnswer {
  observations: Array<{ description: string; entities: string[] }>;
  hypotheses: Array<{
    name: string;
    explanation: string;
    additions: HypothesisAddition[];
  }>;
}

/**
 * Abductive reasoning (spec §1.2.4 C): the model names what needs explaining
 * and proposes 2 or 3 hypotheses as graph additions; code scores them on
 * coverage, simplicity and consistency and selects the best. Each end of an
 * addition is declared where it is used, by name and type: a listed graph
 * entity's name refers to it (compared as entity names are merged), any other
 * name is a new entity of that type. So every answer that follows the schema
 * is usable: there is no cross-reference for the validator to check (new
 * entities still cost simplicity).
 */
export function createAbductionMode(names: readonly string[]): ModeDefinition<AbductionInput, AbductionAnswer> {
  const name = entityNameSchema(names);
  const end = z
    .string()
    .min(1)
    .max(120)
    .describe("A graph entity's name exactly as listed, or the name of a new entity this hypothesis introduces");
  const type = z
    .string()
    .min(1)
    .max(60)
    .describe("The entity's type (person, place, event, concept, ...); it matters only for a new entity");
  return defineMode<AbductionInput, AbductionAnswer>({
    ...abductionModeDeclaration,
    name: "knowledge_graph_hypotheses",
    description: "Observations to explain and 2-3 hypotheses as new nodes and edges",
    system:
      "You are a diagnostic reasoner performing abductive reasoning on a knowledge graph: from observations, infer the simplest and most plausible explanation. First list the observations (or gaps) in the graph that bear on the goal, each naming the graph entities involved. Then propose 2 or 3 distinct hypotheses: new relations (and, only where necessary, new entities) that, if added, would explain the observations. Keep each hypothesis minimal and consistent with the graph: a hypothesis that contradicts an asserted fact is refused. Each end of a relation is a graph entity by its listed name, or a new entity; give each end's type beside it (subjectType, objectType). Every new entity costs simplicity. Code scores the hypotheses on coverage, simplicity and consistency; explain each one, but do not score them.",
    prompt: (input) =>
      [
        `Goal: ${input.goal}`,
        `Focus: ${input.purpose}`,
        "",
        "Current knowledge graph (relevant part):",
        input.graph,
      ].join("\n"),
    output: z.object({
      observations: z
        .array(
          z.object({
            description: z.string().min(1).max(300),
            entities: z.array(name).min(1).max(3).describe("Graph entities the observation is about"),
          }),
        )
        .min(1)
        .max(5),
      hypotheses: z
        .array(
          z.object({
            name: z.string().min(1).max(80),
            explanation: z.string().min(1).max(800).describe("How the additions would account for the observations"),
            additions: z
              .array(
                z.object({
                  subject: end,
                  subjectType: type,
                  predicate: predicateAnswerSchema,
                  object: end,
                  objectType: type,
                }),
              )
              .min(1)
              .max(6)
              .describe("New relations"),
          }),
        )
        .min(2)
        .max(3),
    }),
  });
}

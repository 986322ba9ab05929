import { z } from "zod";
import { normalizeEntityName } from "../algorithms/names.ts";
import { defineMode, type ModeDefinition } from "@deliberate/engine";
import { entityNameSchema, predicateAnswerSchema } from "./schema-parts.ts";

export interface AbductionInput {
  goal: string;
  purpose: string;
  graph: string;
  names: readonly string[];
}

export interface AbductionAnswer {
  observations: Array<{ description: string; entities: string[] }>;
  hypotheses: Array<{
    name: string;
    explanation: string;
    newEntities: Array<{ name: string; type: string; observations: string[] }>;
    additions: Array<{ subject: string; predicate: string; object: string }>;
  }>;
}

/**
 * Abductive reasoning (spec §1.2.4 C): the model names what needs explaining
 * and proposes 2 or 3 hypotheses as graph additions; code scores them on
 * coverage, simplicity and consistency and selects the best.
 */
export function createAbductionMode(names: readonly string[]): ModeDefinition<AbductionInput, AbductionAnswer> {
  const name = entityNameSchema(names);
  return defineMode<AbductionInput, AbductionAnswer>({
    mode: "knowledge_graph_abduce",
    name: "knowledge_graph_hypotheses",
    description: "Observations to explain and 2-3 hypotheses as new nodes and edges",
    system:
      "You are a diagnostic reasoner performing abductive reasoning on a knowledge graph: from observations, infer the simplest and most plausible explanation. First list the observations (or gaps) in the graph that bear on the goal, each naming the graph entities involved. Then propose 2 or 3 distinct hypotheses: new entities and relations that, if added, would explain the observations. Keep each hypothesis minimal (no new entities unless necessary) and consistent with the graph. Additions may join graph entities and the hypothesis's own new entities. Code scores the hypotheses on coverage, simplicity and consistency; explain each one, but do not score them.",
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
        .array(z.object({ description: z.string().min(1).max(300), entities: z.array(name).min(1).max(3).describe("Graph entities the observation is about") }))
        .min(1)
        .max(5),
      hypotheses: z
        .array(
          z.object({
            name: z.string().min(1).max(80),
            explanation: z.string().min(1).max(800).describe("How the additions would account for the observations"),
            newEntities: z
              .array(z.object({ name: z.string().min(1).max(120), type: z.string().min(1).max(60), observations: z.array(z.string().min(1).max(300)).max(3) }))
              .max(3),
            additions: z
              .array(z.object({ subject: z.string().min(1).max(120), predicate: predicateAnswerSchema, object: z.string().min(1).max(120) }))
              .min(1)
              .max(6)
              .describe("New relations; subjects and objects are graph entities or this hypothesis's new entities"),
          }),
        )
        .min(2)
        .max(3),
    }).superRefine((answer, context) => {
      const known = new Set(names.map(normalizeEntityName));
      answer.hypotheses.forEach((hypothesis, index) => {
        const own = new Set(hypothesis.newEntities.map((entity) => normalizeEntityName(entity.name)));
        hypothesis.additions.forEach((addition, position) => {
          for (const end of ["subject", "object"] as const) {
            const key = normalizeEntityName(addition[end]);
            if (!known.has(key) && !own.has(key)) {
              context.addIssue({
                code: "custom",
                path: ["hypotheses", index, "additions", position, end],
                message: `'${addition[end]}' is neither a graph entity nor one of this hypothesis's newEntities; add it to newEntities or use a listed name`,
              });
            }
          }
        });
      });
    }),
  });
}

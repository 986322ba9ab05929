import { z } from "zod";
import { defineMode, type ModeDeclaration } from "@deliberate/engine";
import { confidenceAnswerSchema, predicateAnswerSchema } from "./schema-parts.ts";
import { lazySchema } from "@deliberate/contracts";

/** The `knowledge_graph_extract` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const extractionModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_extract",
  settings: { temperature: 0.2, maxTokens: 3000 },
};

/** Bounds of one extraction, so one answer cannot flood the graph. */
export const extractionLimits = { entities: 30, relations: 40, observations: 5 } as const;

export interface ExtractionInput {
  /** What the text is: the goal and context of a new session, a tool's result, the user's answer. */
  source: string;
  goal: string;
  text: string;
  /** The known part of the graph, rendered (bounded), so known entities keep their names. */
  known: string;
}

export const extractionAnswerSchema = lazySchema(() =>
  z.object({
    entities: z
      .array(
        z.object({
          name: z
            .string()
            .min(1)
            .max(120)
            .describe("The entity's name; reuse a known entity's name exactly when it is the same thing"),
          type: z.string().min(1).max(60).describe("person, organization, place, event, concept, quantity, ..."),
          observations: z
            .array(z.string().min(1).max(300))
            .max(extractionLimits.observations)
            .describe("Short facts the text states about it"),
        }),
      )
      .max(extractionLimits.entities),
    relations: z
      .array(
        z.object({
          subject: z.string().min(1).max(120),
          predicate: predicateAnswerSchema,
          object: z.string().min(1).max(120),
          confidence: confidenceAnswerSchema.describe("How clearly the text states it, 0 to 1"),
        }),
      )
      .max(extractionLimits.relations),
  }),
);
export type ExtractionAnswer = z.infer<typeof extractionAnswerSchema>;

/** Seeding and enrichment: entities and relations a text states, as structured output. */
export const extractionMode = defineMode<ExtractionInput, ExtractionAnswer>({
  ...extractionModeDeclaration,
  name: "knowledge_graph_extraction",
  description: "Entities and relations stated by the text",
  system:
    "You build a knowledge graph from text. Extract the entities the text mentions (people, organizations, places, events, concepts, quantities) and the relations it states between them, as subject-predicate-object triples. Use only what the text states; do not add outside knowledge. Reuse the exact name of a known entity when the text refers to it. Predicates are short snake_case verbs (located_in, causes, part_of); state a negative fact with the not_ prefix (not_located_in). Relations may only join entities you list or known entities. If the text states nothing extractable, return empty lists.",
  prompt: (input) =>
    [
      `Source: ${input.source}`,
      `Goal of the session: ${input.goal}`,
      "",
      "Known graph:",
      input.known,
      "",
      "Text:",
      input.text,
    ].join("\n"),
  output: extractionAnswerSchema,
});

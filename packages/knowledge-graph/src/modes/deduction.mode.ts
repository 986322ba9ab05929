import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { entityNameSchema, predicateAnswerSchema } from "./schema-parts.ts";
import { lazySchema } from "@deliberate/contracts";

/** The `knowledge_graph_deduce` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const deductionModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_deduce",
  settings: { temperature: 0.1, maxTokens: 2500 },
};

export interface DeductionInput {
  goal: string;
  purpose: string;
  graph: string;
  premises: string;
  names: readonly string[];
}

export interface RuleAtomAnswer {
  subject: string;
  predicate: string;
  object: string;
}

export interface DeductionAnswer {
  rules: Array<{
    name: string;
    statement: string;
    conditions: RuleAtomAnswer[];
    different: Array<{ left: string; right: string }>;
    conclusions: RuleAtomAnswer[];
  }>;
  query:
    | { kind: "path"; from: string; to: string; predicates: string[] | null }
    | { kind: "triple"; subject: string; predicate: string; object: string }
    | { kind: "none" };
}

const term = lazySchema(() =>
  z
    .string()
    .min(1)
    .max(120)
    .describe(
      "A variable (?x, ?y, ...) or an entity name exactly as in the graph (a new name is allowed in conclusions)",
    ),
);

const atom = lazySchema(() => z.object({ subject: term, predicate: predicateAnswerSchema, object: term }));

/**
 * Deductive reasoning (spec §1.2.4 B), split as the design asks: the model
 * turns premises into explicit rules over triples; code applies them by
 * forward chaining and validates paths by graph search.
 */
export function createDeductionMode(names: readonly string[]): ModeDefinition<DeductionInput, DeductionAnswer> {
  const name = entityNameSchema(names);
  return defineMode<DeductionInput, DeductionAnswer>({
    ...deductionModeDeclaration,
    name: "knowledge_graph_rules",
    description: "The premises as explicit rules over triples, and the query to check",
    system:
      "You are a precise logical reasoner preparing deductive reasoning over a knowledge graph. Deduction applies general premises accepted as true to reach conclusions that must follow. Do not apply the rules yourself: write each general premise as an explicit rule over triples, which code will apply to the whole graph until nothing new follows. A rule has conditions and conclusions, each a (subject, predicate, object) pattern; subjects and objects are variables (?x, ?y, ?z) or entity names; every variable of a conclusion must appear in the conditions. When two variables must name different entities (a sibling is someone else with the same parent), list them under different (?x != ?y). Use the graph's predicates so the rules match its relations. Introduce no facts or assumptions beyond the premises and the graph. Then state the query that settles the goal: a path from one entity to another (optionally through given relation types; ^type walks a relation backwards), one triple to check, or none.",
    prompt: (input) =>
      [
        `Goal: ${input.goal}`,
        `Focus: ${input.purpose}`,
        "",
        "Current knowledge graph (relevant part):",
        input.graph,
        "",
        "Premises (rules stated by the host or the goal):",
        input.premises || "(none beyond the goal)",
      ].join("\n"),
    output: z.object({
      rules: z
        .array(
          z.object({
            name: z.string().min(1).max(80).describe("A short name, e.g. 'parent implies ancestor'"),
            statement: z.string().min(1).max(400).describe("The premise in words"),
            conditions: z.array(atom).min(1).max(4),
            different: z
              .array(z.object({ left: term, right: term }))
              .max(3)
              .describe(
                "Inequalities (left != right): pairs of condition variables that must name different entities, e.g. ?x and ?y for siblings; [] when none",
              ),
            conclusions: z.array(atom).min(1).max(2),
          }),
        )
        .min(1)
        .max(8),
      query: z.union([
        z.object({
          kind: z.literal("path"),
          from: name,
          to: name,
          predicates: z
            .array(z.string().min(1).max(61))
            .max(6)
            .nullable()
            .describe("Relation types in order (^type walks one backwards), or null for any path"),
        }),
        z.object({
          kind: z.literal("triple"),
          subject: z.string().min(1).max(120),
          predicate: predicateAnswerSchema,
          object: z.string().min(1).max(120),
        }),
        z.object({ kind: z.literal("none") }),
      ]),
    }),
  });
}

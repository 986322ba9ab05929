import { type AnalysisDepth, DeliberateError } from "@deliberate/contracts";
import { z } from "zod";
import { findCausalCycle } from "@deliberate/algorithms";
import { defineMode, type ModeDefinition } from "@deliberate/engine";

/** Size of a causal model the model may propose. */
export const proposedCausalModelLimits = { minVariables: 2, maxVariables: 12, maxRelationships: 30 } as const;

/** Bounds of model-judged strengths and changes. */
export const judgedCausalBounds = { strength: 10, change: 1_000_000 } as const;

function addIssue(context: z.RefinementCtx, path: Array<string | number>, message: string): void {
  context.addIssue({ code: "custom", path, message });
}

const strengthSchema = () =>
  z
    .number()
    .min(-judgedCausalBounds.strength)
    .max(judgedCausalBounds.strength)
    .describe("Change in effect per unit change in cause, all else fixed (negative = the cause lowers the effect)");
/** A variable name: not blank, no surrounding spaces (so names match exactly). */
const variableName = () => z.string().regex(/^\S(?:.*\S)?$/, "must be a name without surrounding spaces");

const changeSchema = () => z.number().min(-judgedCausalBounds.change).max(judgedCausalBounds.change).describe("How much the intervention shifts the variable, in its units");

export const depthGuidance: Readonly<Record<AnalysisDepth, string>> = {
  association:
    "Rung 1, association (seeing): describe what one would expect to observe together with this change. These are correlations, not effects: say which come from causal paths and which from shared causes or reverse links, and do not claim the change causes them.",
  intervention:
    "Rung 2, intervention (doing): describe what happens if the change is made from outside (do-operator). Only downstream variables move; the variable's own causes and unrelated variables stay as they are.",
  counterfactual:
    "Rung 3, counterfactual (imagining): describe what would have happened in this specific scenario had the change been made, contrasting it with what actually happened, with the scenario's background conditions held fixed.",
};

/** Turns the algorithm's field names (`causal_model.relationships.2.cause`) into a path inside the answer. */
function answerPath(field: string): Array<string | number> {
  return field
    .replace(/^causal_model\.?/, "")
    .split(".")
    .filter((part) => part !== "")
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

export interface ProposalNeeds {
  scenario: string;
  intervention: string;
  depth: AnalysisDepth;
  /** The caller's target (always a change here), which the proposed model must contain. */
  target: { variable: string; change: number } | undefined;
  /** Variables the caller observed, which the proposed model must contain. */
  observed: readonly string[];
}

export interface ProposalAnswer {
  variables: string[];
  relationships: Array<{ cause: string; effect: string; strength: number }>;
  intervention_target?: { variable: string; change: number } | undefined;
  rationale: string;
}

/**
 * Proposes a linear causal DAG for the scenario (and, unless given, which
 * variable the intervention sets and by how much). The answer is validated
 * as a DAG in code; a cycle goes back to the model in the repair round.
 */
export function createCausalProposalMode(needs: ProposalNeeds): ModeDefinition<ProposalNeeds, ProposalAnswer> {
  // Variables the caller named must be in the model, spelled exactly: `contains` per name.
  const required = [...new Set([...(needs.target ? [needs.target.variable] : []), ...needs.observed])];
  const output = z
    .object({
      variables: z
        .array(variableName())
        .min(proposedCausalModelLimits.minVariables)
        .max(proposedCausalModelLimits.maxVariables)
        .meta({ uniqueItems: true, ...(required.length > 0 ? { allOf: required.map((name) => ({ contains: { const: name } })) } : {}) })
        .describe(`Short, measurable variable names, each once${required.length > 0 ? `; must include ${required.map((name) => JSON.stringify(name)).join(", ")}` : ""}`),
      relationships: z
        .array(z.object({ cause: variableName().describe("One of variables"), effect: variableName().describe("One of variables, not the cause"), strength: strengthSchema() }))
        .max(proposedCausalModelLimits.maxRelationships)
        .describe("Direct cause -> effect links between listed variables, each pair once, no cycles"),
      ...(needs.target === undefined
        ? { intervention_target: z.object({ variable: variableName().describe("The variable the intervention sets: one of variables"), change: changeSchema() }) }
        : {}),
      rationale: z.string().describe("Why these variables and links, and where the strengths come from"),
    })
    .superRefine((raw, context) => {
      const answer = raw as ProposalAnswer;
      // Beyond JSON Schema (these relate one part of the answer to another): the proposed target, and
      // every relationship's ends, are among the variables; no self-loops, repeated pairs or cycles.
      const named = [...required];
      if (answer.intervention_target !== undefined) named.push(answer.intervention_target.variable);
      for (const name of new Set(named)) {
        if (!answer.variables.includes(name)) addIssue(context, ["variables"], `must include the variable '${name}' exactly as written`);
      }
      try {
        const cycle = findCausalCycle({ variables: answer.variables, relationships: answer.relationships });
        if (cycle !== null) {
          addIssue(context, ["relationships"], `contain a cycle: ${cycle.join(" -> ")}; a causal model must be acyclic, so remove or reverse one of these links`);
        }
      } catch (error) {
        if (!DeliberateError.isInstance(error)) throw error;
        for (const issue of error.issues) addIssue(context, answerPath(issue.field), issue.message);
      }
    });
  return defineMode({
    mode: "counterfactual",
    name: "counterfactual_causal_model",
    description: "A linear causal DAG for the scenario and the variable the intervention sets.",
    system: [
      "You build causal models for another AI agent's what-if analysis. The arithmetic (propagating the intervention) is done in code on your model.",
      "Give a small directed acyclic graph: measurable variables, and direct cause -> effect relationships with a linear strength = how much the effect changes per unit change of the cause, all else fixed (negative when the cause lowers the effect). Include common causes of modelled variables so confounding is explicit. No feedback loops.",
      "Then say which variable the intervention sets and by how much (in that variable's units).",
    ].join("\n"),
    prompt: (input: ProposalNeeds) =>
      [
        `Scenario: ${input.scenario}`,
        `Intervention (what if): ${input.intervention}`,
        `Analysis: ${depthGuidance[input.depth].split(":")[0]}.`,
        input.target ? `The intervention sets '${input.target.variable}' (change ${input.target.change}); include that variable with this exact name.` : "",
        input.observed.length > 0 ? `Include these observed variables with these exact names: ${input.observed.join(", ")}.` : "",
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<ProposalNeeds, ProposalAnswer>;
}

export interface MappingNeeds {
  scenario: string;
  intervention: string;
  variables: readonly string[];
  relationships: ReadonlyArray<{ cause: string; effect: string; strength?: number | undefined }>;
  /** Indexes of relationships without a strength. */
  missingStrengths: readonly number[];
  needTarget: boolean;
}

export interface MappingAnswer {
  strengths?: Array<{ relationship: number; strength: number }> | undefined;
  intervention_target?: { variable: string; change: number } | undefined;
  rationale: string;
}

/**
 * Fills in what the caller's causal model leaves out: missing strengths (keyed
 * by relationship index) and/or which variable the intervention sets (an enum
 * of the variables). The schema is the whole check.
 */
export function createCausalMappingMode(needs: MappingNeeds): ModeDefinition<MappingNeeds, MappingAnswer> {
  const output = z
    .object({
      ...(needs.missingStrengths.length > 0
        ? {
            strengths: z
              .object(Object.fromEntries(needs.missingStrengths.map((index) => [String(index), strengthSchema()])))
              .describe("One strength per relationship asked for, keyed by the relationship's index"),
          }
        : {}),
      ...(needs.needTarget
        ? {
            intervention_target: z.object({
              variable: z.enum(needs.variables as [string, ...string[]]).describe("The variable the intervention sets"),
              change: changeSchema(),
            }),
          }
        : {}),
      rationale: z.string(),
    })
    .transform((raw): MappingAnswer => {
      const answer = raw as { strengths?: Record<string, number>; intervention_target?: { variable: string; change: number }; rationale: string };
      return {
        ...(answer.strengths !== undefined ? { strengths: needs.missingStrengths.map((index) => ({ relationship: index, strength: answer.strengths?.[String(index)] as number })) } : {}),
        ...(answer.intervention_target !== undefined ? { intervention_target: answer.intervention_target } : {}),
        rationale: answer.rationale,
      };
    });
  return defineMode({
    mode: "counterfactual",
    name: "counterfactual_mapping",
    description: "Missing strengths of a given causal model and the variable the intervention sets.",
    system: [
      "You complete a given linear causal model for another AI agent's what-if analysis; the propagation is computed in code.",
      "A strength is how much the effect changes per unit change of the cause, all else fixed (negative when the cause lowers the effect). Keep the given structure and strengths; give only what is asked.",
    ].join("\n"),
    prompt: (input: MappingNeeds) =>
      [
        `Scenario: ${input.scenario}`,
        `Intervention (what if): ${input.intervention}`,
        `Variables: ${input.variables.join(", ")}`,
        "Relationships:",
        ...input.relationships.map((relationship, index) => `[${index}] ${relationship.cause} -> ${relationship.effect}: strength ${relationship.strength ?? "?"}`),
        input.missingStrengths.length > 0 ? `Give the strengths of relationships ${input.missingStrengths.join(", ")}.` : "",
        input.needTarget ? "Say which variable the intervention sets and by how much (in its units)." : "",
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<MappingNeeds, MappingAnswer>;
}

export interface NarrativeNeeds {
  scenario: string;
  intervention: string;
  depth: AnalysisDepth;
  /** The model and the computed effects, rendered for the prompt. */
  computed: string;
}

export interface NarrativeAnswer {
  counterfactual_outcome: string;
  key_differences: string[];
  assumptions: string[];
  confidence: number;
}

/** The narrative over effects already computed in code; the depth decides what kind of claim it may make. */
export const narrativeMode = defineMode({
  mode: "counterfactual",
  name: "counterfactual_narrative",
  description: "Narrative, key differences and assumptions of a what-if analysis whose numbers are given.",
  system: [
    "You explain a what-if analysis for another AI agent. The numbers were computed in code from a linear causal model; use them as given and do not recompute or contradict them.",
    "Write the outcome in plain language, list the key differences (largest first, with their numbers), list the assumptions a reader should question (beyond linearity), and rate your confidence 0..1 that the conclusion holds in reality given the model's simplifications.",
  ].join("\n"),
  prompt: (input: NarrativeNeeds) =>
    [`Scenario: ${input.scenario}`, `Intervention (what if): ${input.intervention}`, depthGuidance[input.depth], "", input.computed]
      .filter((line, index) => line !== "" || index === 3)
      .join("\n"),
  output: z.object({
    counterfactual_outcome: z.string().min(1),
    key_differences: z.array(z.string()).min(1).max(10),
    assumptions: z.array(z.string()).max(10),
    confidence: z.number().min(0).max(1),
  }),
});

import { lazySchema, type AnalysisDepth } from "@deliberate/contracts";
import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";

/** The `counterfactual` mode and its default model settings, declared on every `counterfactual` definition (the engine layers configuration and runtime overrides on top). */
export const counterfactualModeDeclaration: ModeDeclaration = {
  mode: "counterfactual",
  settings: { temperature: 0.6, maxTokens: 3000, thinkingBudget: 16384, stream: true },
};

/** Size of a causal model the model may propose. */
export const proposedCausalModelLimits = { minVariables: 2, maxVariables: 12 } as const;

/** Bounds of model-judged strengths and changes. */
export const judgedCausalBounds = { strength: 10, change: 1_000_000 } as const;

const strengthSchema = () =>
  z
    .number()
    .min(-judgedCausalBounds.strength)
    .max(judgedCausalBounds.strength)
    .describe("Change in effect per unit change in cause, all else fixed (negative = the cause lowers the effect)");
/** A variable name: not blank, no surrounding spaces (so names match exactly). */
const variableName = () => z.string().regex(/^\S(?:.*\S)?$/, "must be a name without surrounding spaces");

const changeSchema = () =>
  z
    .number()
    .min(-judgedCausalBounds.change)
    .max(judgedCausalBounds.change)
    .describe("How much the intervention shifts the variable, in its units");

export const depthGuidance: Readonly<Record<AnalysisDepth, string>> = {
  association:
    "Rung 1, association (seeing): describe what one would expect to observe together with this change. These are correlations, not effects: say which come from causal paths and which from shared causes or reverse links, and do not claim the change causes them.",
  intervention:
    "Rung 2, intervention (doing): describe what happens if the change is made from outside (do-operator). Only downstream variables move; the variable's own causes and unrelated variables stay as they are.",
  counterfactual:
    "Rung 3, counterfactual (imagining): describe what would have happened in this specific scenario had the change been made, contrasting it with what actually happened, with the scenario's background conditions held fixed.",
};

/**
 * A variable's causal level. Only the order of levels matters (a variable can be caused only by variables
 * at lower levels), so any whole number is taken: no bound for an answer to break.
 */
const levelSchema = () =>
  z
    .number()
    .int()
    .describe(
      "Causal level: 0 when no other variable of the model causes it; otherwise higher than the level of every variable that directly causes it",
    );

export interface VariablesNeeds {
  scenario: string;
  intervention: string;
  depth: AnalysisDepth;
  /** The caller's target (always a change here), which the proposed model must contain. */
  target: { variable: string; change: number } | undefined;
  /** Variables the caller observed, which the proposed model must contain. */
  observed: readonly string[];
}

/** A proposed variable and its causal level (causes sit at lower levels than their effects). */
export interface LevelledVariable {
  name: string;
  level: number;
}

export interface VariablesAnswer {
  /** Every variable of the model once (the caller's first), ordered by level; a name given twice is kept once. */
  variables: LevelledVariable[];
  /** The variable the intervention sets, when the model chose it (it is among `variables`). */
  intervention_target?: { variable: string; change: number } | undefined;
  rationale: string;
}

/** The names the caller gave (target first, then observed), each once. */
export function givenVariableNames(needs: Pick<VariablesNeeds, "target" | "observed">): string[] {
  return [...new Set([...(needs.target ? [needs.target.variable] : []), ...needs.observed])];
}

/**
 * Step 1 of proposing a causal model: its variables, each with a causal level,
 * and (unless given) the variable the intervention sets. Following the schema
 * is enough: the caller's variables are required keys, the model's target is
 * declared where it is used (it joins the variables), and a name listed twice
 * is kept once. The levels make step 2's links acyclic by construction.
 */
export function createCausalVariablesMode(needs: VariablesNeeds): ModeDefinition<VariablesNeeds, VariablesAnswer> {
  const given = givenVariableNames(needs);
  const declared = given.length + (needs.target === undefined ? 1 : 0);
  const output = z
    .object({
      ...(given.length > 0
        ? {
            given_variables: z
              .object(Object.fromEntries(given.map((name) => [name, z.object({ level: levelSchema() })])))
              .describe("The variables the caller named, keyed by name: give each its causal level"),
          }
        : {}),
      ...(needs.target === undefined
        ? {
            intervention_target: z
              .object({
                variable: variableName().describe(
                  "The variable the intervention sets (it becomes one of the model's variables)",
                ),
                level: levelSchema(),
                change: changeSchema(),
              })
              .describe("Which variable the intervention sets, its causal level, and by how much"),
          }
        : {}),
      other_variables: z
        .array(z.object({ name: variableName().describe("Short, measurable variable name"), level: levelSchema() }))
        .min(Math.max(0, proposedCausalModelLimits.minVariables - declared))
        .max(Math.max(0, proposedCausalModelLimits.maxVariables - declared))
        .describe(
          "The model's other variables (causes, mediators, outcomes, common causes), each once with its causal level",
        ),
      rationale: z.string().describe("Why these variables, and why their levels"),
    })
    .transform((raw): VariablesAnswer => {
      const answer = raw as {
        given_variables?: Record<string, { level: number }>;
        intervention_target?: { variable: string; level: number; change: number };
        other_variables: LevelledVariable[];
        rationale: string;
      };
      const listed: LevelledVariable[] = [
        ...given.map((name) => ({ name, level: answer.given_variables?.[name]?.level as number })),
        ...(answer.intervention_target
          ? [{ name: answer.intervention_target.variable, level: answer.intervention_target.level }]
          : []),
        ...answer.other_variables.map((variable) => ({ name: variable.name, level: variable.level })),
      ];
      // A name listed twice is one variable: the first declaration (the caller's, then the target) keeps its level.
      const byName = new Map<string, LevelledVariable>();
      for (const variable of listed) if (!byName.has(variable.name)) byName.set(variable.name, variable);
      return {
        // Array.prototype.sort is stable: within a level, the declaration order stays.
        variables: [...byName.values()].sort((left, right) => left.level - right.level),
        ...(answer.intervention_target
          ? {
              intervention_target: {
                variable: answer.intervention_target.variable,
                change: answer.intervention_target.change,
              },
            }
          : {}),
        rationale: answer.rationale,
      };
    });
  return defineMode({
    ...counterfactualModeDeclaration,
    name: "counterfactual_variables",
    description:
      "The variables of a linear causal model for the scenario, each with its causal level, and the variable the intervention sets.",
    system: [
      "You build causal models for another AI agent's what-if analysis, in two steps; the arithmetic (propagating the intervention) is done in code on your model.",
      "This step: choose a small set of measurable variables (2 to 12), including common causes of modelled variables so confounding is explicit, and give each a causal level: 0 when nothing in the model causes it, otherwise higher than every variable that directly causes it. Variables can only be caused by variables at lower levels, so there are no feedback loops; the next step asks for the links.",
      "When asked, say which variable the intervention sets and by how much (in that variable's units).",
    ].join("\n"),
    prompt: (input: VariablesNeeds) =>
      [
        `Scenario: ${input.scenario}`,
        `Intervention (what if): ${input.intervention}`,
        `Analysis: ${depthGuidance[input.depth].split(":")[0]}.`,
        input.target ? `The intervention sets '${input.target.variable}' (change ${input.target.change}).` : "",
        given.length > 0
          ? `The model includes these variables, named exactly so: ${given.join(", ")}; give their levels under given_variables.`
          : "",
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<VariablesNeeds, VariablesAnswer>;
}

export interface LinksNeeds {
  scenario: string;
  intervention: string;
  /** Step 1's variables, ordered by level. */
  variables: readonly LevelledVariable[];
}

export interface LinksAnswer {
  relationships: Array<{ cause: string; effect: string; strength: number }>;
  rationale: string;
}

/** Whether any variable sits above another, so that a link is possible at all. */
export function linksPossible(variables: readonly LevelledVariable[]): boolean {
  return new Set(variables.map((variable) => variable.level)).size > 1;
}

/**
 * Step 2 of proposing a causal model: the direct effects on each variable,
 * keyed by the effect and then by every variable at a lower level (its
 * possible causes), each a required strength where 0 is no link. Every answer
 * that follows the schema is a DAG over the listed variables, with no
 * self-loop and each pair at most once; and having no optional keys, the
 * schema needs no nullable fields in a provider's strict subset.
 */
export function createCausalLinksMode(needs: LinksNeeds): ModeDefinition<LinksNeeds, LinksAnswer> {
  const effects = needs.variables.filter((effect) => needs.variables.some((cause) => cause.level < effect.level));
  const causesOf = (effect: LevelledVariable) =>
    needs.variables.filter((cause) => cause.level < effect.level).map((cause) => cause.name);
  const output = z
    .object({
      // Closed objects: a cause that is not at a lower level is refused (and repaired), never silently dropped.
      causes: z
        .strictObject(
          Object.fromEntries(
            effects.map((effect) => [
              effect.name,
              z
                .strictObject(Object.fromEntries(causesOf(effect).map((cause) => [cause, strengthSchema()])))
                .describe(
                  `The strength of each lower-level variable's direct effect on ${effect.name}; 0 where it has none`,
                ),
            ]),
          ),
        )
        .describe("For each variable that lower-level variables could cause: its direct causes and their strengths"),
      rationale: z.string().describe("Why these links, and where the strengths come from"),
    })
    .transform((raw): LinksAnswer => {
      const answer = raw as { causes: Record<string, Record<string, number | undefined>>; rationale: string };
      const relationships = effects.flatMap((effect) =>
        causesOf(effect).flatMap((cause) => {
          // In a linear model a zero strength is no direct effect: not a link.
          const strength = answer.causes[effect.name]?.[cause] ?? 0;
          return strength === 0 ? [] : [{ cause, effect: effect.name, strength }];
        }),
      );
      return { relationships, rationale: answer.rationale };
    });
  return defineMode({
    ...counterfactualModeDeclaration,
    name: "counterfactual_links",
    description:
      "The direct cause -> effect links, with linear strengths, between the levelled variables of a causal model.",
    system: [
      "You build causal models for another AI agent's what-if analysis, in two steps; the arithmetic (propagating the intervention) is done in code on your model.",
      "This step: the variables and their causal levels are fixed. For each variable, give the direct effect on it of every variable at a lower level as a linear strength = how much the effect changes per unit change of the cause, all else fixed (negative when the cause lowers the effect; 0 when it has no direct effect).",
    ].join("\n"),
    prompt: (input: LinksNeeds) =>
      [
        `Scenario: ${input.scenario}`,
        `Intervention (what if): ${input.intervention}`,
        "Variables (causal level: name):",
        ...input.variables.map((variable) => `- ${variable.level}: ${variable.name}`),
      ].join("\n"),
    output,
  }) as ModeDefinition<LinksNeeds, LinksAnswer>;
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
      const answer = raw as {
        strengths?: Record<string, number>;
        intervention_target?: { variable: string; change: number };
        rationale: string;
      };
      return {
        ...(answer.strengths !== undefined
          ? {
              strengths: needs.missingStrengths.map((index) => ({
                relationship: index,
                strength: answer.strengths?.[String(index)] as number,
              })),
            }
          : {}),
        ...(answer.intervention_target !== undefined ? { intervention_target: answer.intervention_target } : {}),
        rationale: answer.rationale,
      };
    });
  return defineMode({
    ...counterfactualModeDeclaration,
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
        ...input.relationships.map(
          (relationship, index) =>
            `[${index}] ${relationship.cause} -> ${relationship.effect}: strength ${relationship.strength ?? "?"}`,
        ),
        input.missingStrengths.length > 0
          ? `Give the strengths of relationships ${input.missingStrengths.join(", ")}.`
          : "",
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
  ...counterfactualModeDeclaration,
  name: "counterfactual_narrative",
  description: "Narrative, key differences and assumptions of a what-if analysis whose numbers are given.",
  system: [
    "You explain a what-if analysis for another AI agent. The numbers were computed in code from a linear causal model; use them as given and do not recompute or contradict them.",
    "Write the outcome in plain language, list the key differences (largest first, with their numbers), list the assumptions a reader should question (beyond linearity), and rate your confidence 0..1 that the conclusion holds in reality given the model's simplifications.",
  ].join("\n"),
  prompt: (input: NarrativeNeeds) =>
    [
      `Scenario: ${input.scenario}`,
      `Intervention (what if): ${input.intervention}`,
      depthGuidance[input.depth],
      "",
      input.computed,
    ]
      .filter((line, index) => line !== "" || index === 3)
      .join("\n"),
  output: lazySchema(() =>
    z.object({
      counterfactual_outcome: z.string().min(1),
      key_differences: z.array(z.string()).min(1).max(10),
      assumptions: z.array(z.string()).max(10),
      confidence: z.number().min(0).max(1),
    }),
  ),
});

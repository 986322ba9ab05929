import { z } from "zod";
import { looseBoolean, looseNumber } from "../coerce.ts";
import { recordInput } from "../published-form.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

export const analysisDepthSchema = lazySchema(() => z.enum(["association", "intervention", "counterfactual"]));
export type AnalysisDepth = z.infer<typeof analysisDepthSchema>;

/** Size limits of a causal model (given or proposed). */
export const causalModelLimits = { variables: 50, relationships: 200 } as const;

const finiteNumber = () => looseNumber(z.number());

export const causalRelationshipInputSchema = lazySchema(() =>
  z.object({
    cause: z.string().trim().min(1, "cause must not be empty"),
    effect: z.string().trim().min(1, "effect must not be empty"),
    strength: finiteNumber()
      .optional()
      .describe(
        "Linear coefficient: +1 in cause changes effect by strength (negative = inhibits); estimated by the model when omitted",
      ),
  }),
);

export const causalModelInputSchema = lazySchema(() =>
  z.object({
    variables: z
      .array(z.string().trim().min(1, "a variable name must not be empty"))
      .min(1, "give at least 1 variable")
      .max(causalModelLimits.variables, `at most ${causalModelLimits.variables} variables`),
    relationships: z
      .array(causalRelationshipInputSchema)
      .max(causalModelLimits.relationships, `at most ${causalModelLimits.relationships} relationships`),
  }),
);

export const interventionTargetSchema = lazySchema(() =>
  z
    .object({
      variable: z.string().trim().min(1, "variable must not be empty"),
      change: finiteNumber().optional().describe("Shift of the variable (do(X := X + change))"),
      value: finiteNumber().optional().describe("New value (do(X := value)); needs observed[variable]"),
    })
    .describe("Which variable the intervention sets, and how; the model maps the intervention text when omitted"),
);

export const counterfactualInputSchema = lazySchema(() =>
  z
    .object({
      scenario: z.string().trim().min(1, "scenario must not be empty").describe("Base scenario"),
      intervention: z
        .string()
        .trim()
        .min(1, "intervention must not be empty")
        .optional()
        .describe("What-if change; omit when the scenario itself asks the what-if question"),
      session_id: z.string().min(1).optional(),
      analysis_depth: analysisDepthSchema.default("counterfactual"),
      causal_model: causalModelInputSchema.optional(),
      intervention_target: interventionTargetSchema.optional(),
      observed: recordInput(finiteNumber(), { keyName: "variable", what: "observed variable" })
        .optional()
        .describe(
          "Factual values of variables in this scenario (counterfactual depth reports factual vs counterfactual values)",
        ),
      narrate: looseBoolean()
        .optional()
        .describe("Ask the model for narrative and assumptions; default: only when the model is needed anyway"),
    })
    .superRefine((value, context) => {
      const issue = (path: Array<string | number>, message: string) =>
        context.addIssue({ code: "custom", path, message });
      const target = value.intervention_target;
      if (target !== undefined) {
        if ((target.change === undefined) === (target.value === undefined)) {
          issue(["intervention_target"], "give exactly one of change (a shift) or value (a new level)");
        }
        if (target.value !== undefined && value.observed?.[target.variable] === undefined) {
          issue(
            ["observed", target.variable],
            `intervention_target.value needs the factual value observed.${target.variable} to know the shift; or give change instead`,
          );
        }
        if (value.causal_model !== undefined && !value.causal_model.variables.includes(target.variable)) {
          issue(["intervention_target", "variable"], `'${target.variable}' is not one of causal_model.variables`);
        }
      }
      if (value.observed !== undefined && value.causal_model !== undefined) {
        for (const name of Object.keys(value.observed)) {
          if (!value.causal_model.variables.includes(name))
            issue(["observed", name], `'${name}' is not one of causal_model.variables`);
        }
      }
      if (value.causal_model === undefined && target !== undefined && target.value !== undefined) {
        issue(
          ["intervention_target", "value"],
          "without a causal_model give change (a shift), since the proposed model's variables are not known yet",
        );
      }
    }),
);

export const causalChainStepSchema = lazySchema(() =>
  z.object({
    step: z.number().int(),
    cause: z.string(),
    effect: z.string(),
    strength: z.number().describe("Linear coefficient of this relationship"),
    contribution: z.number().describe("Change transmitted along this link: strength x change of the cause (computed)"),
    causal: z.boolean().describe("On a directed path from the intervened variable (false: association only)"),
  }),
);

export const causalPathSchema = lazySchema(() =>
  z.object({
    variables: z.array(z.string()),
    product: z.number().describe("Product of the strengths along the path"),
    contribution: z.number().describe("product x change of the intervened variable"),
  }),
);

export const causalEffectSchema = lazySchema(() =>
  z.object({
    variable: z.string(),
    change: z.number(),
    relation: z.enum(["intervened", "descendant", "ancestor", "confounded"]),
    factual: z.number().optional(),
    counterfactual: z.number().optional().describe("factual + change (counterfactual depth, when observed)"),
  }),
);

export const counterfactualOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    thought_id: z.string().describe("The recorded result (its metadata holds the model and every computed number)"),
    original_scenario: z.string(),
    intervention_applied: z.string(),
    analysis_depth: analysisDepthSchema,
    causal_model: z.object({
      variables: z.array(z.string()),
      relationships: z.array(
        z.object({ cause: z.string(), effect: z.string(), strength: z.number(), estimated: z.boolean() }),
      ),
      source: z.enum(["caller", "model"]),
    }),
    intervention_target: z.object({
      variable: z.string(),
      change: z.number(),
      value: z.number().optional(),
      source: z.enum(["caller", "model"]),
    }),
    causal_chain: z.array(causalChainStepSchema),
    paths: z
      .array(causalPathSchema)
      .describe("Directed paths from the intervened variable; their contributions sum to each descendant's change"),
    paths_truncated: z.boolean(),
    effects: z.array(causalEffectSchema).describe("Variables that change, largest change first"),
    semantics: z.string().describe("How the numbers were computed at this depth"),
    counterfactual_outcome: z.string(),
    key_differences: z.array(z.string()),
    confidence: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe("The model's confidence in the narrative (absent when not narrated)"),
    assumptions: z.array(z.string()),
    narrative_source: z.enum(["model", "computed"]),
  }),
);

export const counterfactualTool = defineTool({
  name: "reasoning_counterfactual",
  description:
    "Counterfactual what-if analysis using Pearl's Ladder of Causation on a linear causal DAG (strength = coefficient along each relationship; effects multiply along paths and add across paths). ASSOCIATION reports what changes would be seen with the variable (regression, incl. confounding, unit noise variances); INTERVENTION computes do(X): only descendants move, by the total effect; COUNTERFACTUAL holds this scenario's background fixed (abduction-action-prediction) and, with observed values, reports factual vs counterfactual values. Give causal_model (cycles are rejected) and intervention_target to skip the model; otherwise the model proposes the DAG and/or maps the intervention, and writes the narrative. Recorded in the session.",
  inputSchema: counterfactualInputSchema,
  outputSchema: counterfactualOutputSchema,
  // Records the result as a thought, so neither read-only nor idempotent (the design doc said both).
  annotations: {
    title: "Counterfactual Analysis",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: [],
  usesModel: true,
});

import { z } from "zod";
import { looseNumber, unitInterval } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { requireTypeFields } from "./require-type-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const decisionTypeSchema = lazySchema(() => z.enum(["weighted", "pairwise", "topsis", "perspectives"]));
export type DecisionType = z.infer<typeof decisionTypeSchema>;

/** Whether more is better (benefit) or less is better (cost) on a criterion. */
export const criterionDirectionSchema = lazySchema(() => z.enum(["benefit", "cost"]));
export type CriterionDirection = z.infer<typeof criterionDirectionSchema>;

/** Most options one call compares; AHP's random index is tabulated to 15 items. */
export const decisionLimits = { options: 30, pairwiseOptions: 15, criteria: 20, stakeholders: 30 } as const;

/** Relative error accepted in a supplied pairwise matrix (0.33 for 1/3 passes). */
export const pairwiseTolerance = 0.05;

const finiteNumber = () => looseNumber(z.number());

export const decisionCriterionSchema = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1, "criterion name must not be empty"),
    weight: looseNumber(z.number().min(0, "weight must be 0 or more"))
      .optional()
      .describe("Relative importance (any scale, normalised to sum 1); give every criterion a weight or none"),
    direction: criterionDirectionSchema
      .optional()
      .describe("benefit = more is better, cost = less is better (default benefit)"),
  }),
);

export const stakeholderInputSchema = lazySchema(() =>
  z.object({
    name: z.string().trim().min(1, "stakeholder name must not be empty"),
    role: z.string().optional(),
    power_level: unitInterval().optional().describe("0..1; high when >= 0.5"),
    interest_level: unitInterval().optional().describe("0..1; high when >= 0.5"),
  }),
);

function duplicates(names: readonly string[]): Array<{ index: number; first: number }> {
  const seen = new Map<string, number>();
  const found: Array<{ index: number; first: number }> = [];
  names.forEach((name, index) => {
    const key = name.trim().toLowerCase();
    const first = seen.get(key);
    if (first === undefined) seen.set(key, index);
    else found.push({ index, first });
  });
  return found;
}

export const decisionInputSchema = lazySchema(() =>
  z
    .object({
      type: decisionTypeSchema
        .default("weighted")
        .describe(
          "weighted=scored ranking, pairwise=direct comparison, topsis=ideal point, perspectives=stakeholder analysis",
        ),
      question: z.string().trim().min(1).optional().describe("Decision question (for weighted/pairwise/topsis)"),
      topic: z.string().trim().min(1).optional().describe("Analysis topic (for perspectives)"),
      options: z
        .array(z.string().trim().min(1, "an option must not be empty"))
        .min(2, "give at least 2 options")
        .optional(),
      criteria: z.array(decisionCriterionSchema).min(1, "give at least 1 criterion, or omit criteria").optional(),
      scores: z
        .array(z.array(finiteNumber()))
        .optional()
        .describe(
          "weighted/topsis: scores[i][j] = option i on criterion j (any finite numbers); with weights given, no model call",
        ),
      normalization: z
        .enum(["min_max", "none"])
        .default("min_max")
        .describe("weighted: min_max rescales each criterion to 0..1 (cost inverted); none uses raw scores"),
      pairwise_matrix: z
        .array(z.array(finiteNumber()))
        .optional()
        .describe(
          "pairwise: Saaty matrix over options, [i][j] = how much i beats j (1/9..9), reciprocal, 1 on the diagonal; no model call",
        ),
      stakeholders: z.array(stakeholderInputSchema).min(1).optional(),
      session_id: z.string().min(1).optional(),
      context: z.string().optional(),
    })
    .superRefine(
      requireTypeFields({ weighted: ["options"], pairwise: ["options"], topsis: ["options"], perspectives: ["topic"] }),
    )
    .superRefine((value, context) => {
      const issue = (path: Array<string | number>, message: string) =>
        context.addIssue({ code: "custom", path, message });
      const scored = value.type === "weighted" || value.type === "topsis";
      const options = value.options ?? [];
      const criteria = value.criteria ?? [];

      if (value.type !== "perspectives") {
        const limit = value.type === "pairwise" ? decisionLimits.pairwiseOptions : decisionLimits.options;
        if (options.length > limit)
          issue(["options"], `at most ${limit} options for type '${value.type}', got ${options.length}`);
      }
      for (const { index, first } of duplicates(options))
        issue(["options", index], `duplicates options.${first}; option names must be unique`);
      if (criteria.length > decisionLimits.criteria)
        issue(["criteria"], `at most ${decisionLimits.criteria} criteria, got ${criteria.length}`);
      for (const { index, first } of duplicates(criteria.map((criterion) => criterion.name))) {
        issue(["criteria", index, "name"], `duplicates criteria.${first}.name; criterion names must be unique`);
      }
      const weighted = criteria.filter((criterion) => criterion.weight !== undefined).length;
      if (weighted > 0 && weighted < criteria.length) {
        const missing = criteria.findIndex((criterion) => criterion.weight === undefined);
        issue(
          ["criteria", missing, "weight"],
          "give every criterion a weight, or none (then the model judges their importance)",
        );
      } else if (weighted > 0 && criteria.every((criterion) => criterion.weight === 0)) {
        issue(["criteria"], "every weight is 0; give at least one criterion a positive weight");
      }

      if (value.scores !== undefined) {
        if (!scored) issue(["scores"], `scores is used by types 'weighted' and 'topsis', not '${value.type}'`);
        else if (value.criteria === undefined)
          issue(["scores"], "scores needs criteria: each column of scores is one criterion, in the order of criteria");
        else {
          if (value.scores.length !== options.length)
            issue(["scores"], `needs one row per option (${options.length}), got ${value.scores.length}`);
          value.scores.forEach((row, index) => {
            if (row.length !== criteria.length)
              issue(["scores", index], `needs one score per criterion (${criteria.length}), got ${row.length}`);
          });
        }
      }

      if (value.pairwise_matrix !== undefined) {
        if (value.type !== "pairwise")
          issue(["pairwise_matrix"], `pairwise_matrix is used by type 'pairwise', not '${value.type}'`);
        else checkPairwiseMatrix(value.pairwise_matrix, options.length, issue);
      }

      if (value.stakeholders !== undefined) {
        if (value.type !== "perspectives")
          issue(["stakeholders"], `stakeholders is used by type 'perspectives', not '${value.type}'`);
        if (value.stakeholders.length > decisionLimits.stakeholders)
          issue(["stakeholders"], `at most ${decisionLimits.stakeholders} stakeholders`);
        for (const { index, first } of duplicates(value.stakeholders.map((stakeholder) => stakeholder.name))) {
          issue(
            ["stakeholders", index, "name"],
            `duplicates stakeholders.${first}.name; stakeholder names must be unique`,
          );
        }
      }
    }),
);

function checkPairwiseMatrix(
  matrix: number[][],
  size: number,
  issue: (path: Array<string | number>, message: string) => void,
): void {
  if (matrix.length !== size) {
    issue(["pairwise_matrix"], `needs one row per option (${size} x ${size}), got ${matrix.length} rows`);
    return;
  }
  let shapeOk = true;
  matrix.forEach((row, i) => {
    if (row.length !== size) {
      issue(["pairwise_matrix", i], `needs ${size} entries (one per option), got ${row.length}`);
      shapeOk = false;
    }
  });
  if (!shapeOk) return;
  const low = (1 / 9) * (1 - pairwiseTolerance);
  const high = 9 * (1 + pairwiseTolerance);
  for (let i = 0; i < size; i += 1) {
    for (let j = 0; j < size; j += 1) {
      const entry = matrix[i]?.[j] as number;
      const mirror = matrix[j]?.[i] as number;
      if (i === j) {
        if (Math.abs(entry - 1) > pairwiseTolerance)
          issue(["pairwise_matrix", i, j], `is on the diagonal and must be 1, got ${entry}`);
      } else if (!(entry >= low && entry <= high)) {
        issue(["pairwise_matrix", i, j], `must be on Saaty's scale between 1/9 and 9, got ${entry}`);
      } else if (j < i && mirror >= low && mirror <= high && Math.abs(entry * mirror - 1) > pairwiseTolerance) {
        issue(
          ["pairwise_matrix", i, j],
          `must be the reciprocal of pairwise_matrix.${j}.${i} (1/${mirror} ≈ ${Number((1 / mirror).toPrecision(3))}), got ${entry}`,
        );
      }
    }
  }
}

export const decisionRankingSchema = lazySchema(() =>
  z.object({
    option: z.string(),
    score: z.number(),
    rank: z.number().int().describe("1 = best; ordinal, ties ordered by input order"),
    tied: z.boolean().describe("Another option has the same score"),
  }),
);

export const valueSourceSchema = lazySchema(() => z.enum(["caller", "model", "default"]));

export const decisionCriterionResultSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    weight: z.number().describe("Normalised weight (sums to 1)"),
    direction: criterionDirectionSchema,
    weight_source: valueSourceSchema,
    direction_source: valueSourceSchema,
  }),
);

export const stakeholderQuadrantSchema = lazySchema(() =>
  z.enum(["key_players", "keep_satisfied", "keep_informed", "minimal_effort"]),
);

export const stakeholderResultSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    role: z.string().optional(),
    power_level: z.number().min(0).max(1),
    interest_level: z.number().min(0).max(1),
    quadrant: stakeholderQuadrantSchema,
    source: z.enum(["caller", "model"]).describe("Who gave the power/interest levels"),
  }),
);

export const decisionOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    thought_id: z.string().describe("The recorded result (its metadata holds every computed number)"),
    type: decisionTypeSchema,
    recommendation: z.string().describe("Best option/action"),
    rankings: z
      .array(decisionRankingSchema)
      .optional()
      .describe("weighted: total score; topsis: closeness in [0,1]; pairwise: AHP priority (sums to 1)"),
    criteria: z.array(decisionCriterionResultSchema).optional(),
    scores: z.array(z.array(z.number())).optional().describe("The option x criterion matrix used"),
    scores_source: z.enum(["caller", "model"]).optional(),
    normalized_scores: z
      .array(z.array(z.number()))
      .optional()
      .describe("weighted: per-criterion scores after normalisation (higher is better)"),
    topsis: z
      .object({
        weighted_normalized: z.array(z.array(z.number())),
        ideal: z.array(z.number()),
        anti_ideal: z.array(z.number()),
        distance_to_ideal: z.array(z.number()),
        distance_to_anti_ideal: z.array(z.number()),
      })
      .optional(),
    pairwise: z
      .object({
        matrix: z.array(z.array(z.number())),
        matrix_source: z.enum(["caller", "model"]),
        priorities: z.array(z.number()),
        lambda_max: z.number(),
        consistency_index: z.number(),
        random_index: z.number(),
        consistency_ratio: z.number(),
        consistent: z.boolean().describe("CR <= 0.1"),
      })
      .optional(),
    stakeholder_map: z
      .object({
        key_players: z.array(z.string()),
        keep_satisfied: z.array(z.string()),
        keep_informed: z.array(z.string()),
        minimal_effort: z.array(z.string()),
      })
      .optional()
      .describe("For perspectives type"),
    stakeholders: z.array(stakeholderResultSchema).optional(),
    conflicts: z.array(z.string()).optional(),
    alignments: z.array(z.string()).optional(),
    warnings: z.array(z.string()).describe("E.g. an AHP consistency ratio above 0.1, or ties"),
    rationale: z.string(),
  }),
);

export const decisionTool = defineTool({
  name: "reasoning_decision",
  description:
    "Multi-criteria decision analysis and stakeholder mapping; every number is computed in code. Types: WEIGHTED ranks options by a weighted sum over normalised weights; PAIRWISE compares options directly (AHP priorities, warning when the consistency ratio > 0.1); TOPSIS ranks by distance to the ideal, honouring benefit vs cost criteria; PERSPECTIVES maps stakeholders to power/interest quadrants with their conflicts and alignments. Supply scores (option x criterion) with weights, or pairwise_matrix, to skip the model; otherwise the model gives only judgements (0-10 scores, Saaty 1-9 comparisons, power/interest levels). Ties rank by input order. Recorded in the session.",
  inputSchema: decisionInputSchema,
  outputSchema: decisionOutputSchema,
  // Records the result as a thought, so neither read-only nor idempotent (the design doc said both).
  annotations: {
    title: "Decision Analysis",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: decisionTypeSchema.options,
  usesModel: true,
});

import { z } from "zod";
import { looseInteger, looseNumber, unitInterval } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { requireTypeFields } from "./require-type-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const evidenceTypeSchema = lazySchema(() => z.enum(["assess", "probabilistic"]));
export type EvidenceType = z.infer<typeof evidenceTypeSchema>;

export const sourceTypeSchema = lazySchema(() => z.enum(["primary", "secondary", "tertiary", "expert", "anecdotal"]));
export type EvidenceSourceType = z.infer<typeof sourceTypeSchema>;

export const chainOfCustodySchema = lazySchema(() => z.enum(["intact", "partial", "broken", "unknown"]));
export type EvidenceChainOfCustody = z.infer<typeof chainOfCustodySchema>;

/** Most evidence items one call takes. */
export const evidenceLimits = { items: 50 } as const;

export const evidenceItemSchema = lazySchema(() =>
  z.object({
    content: z.string().trim().min(1, "evidence content must not be empty"),
    source: z
      .string()
      .optional()
      .describe("Who or what the item comes from; items from one source do not corroborate each other"),
    source_type: sourceTypeSchema.optional(),
    likelihood_if_true: unitInterval().optional().describe("P(evidence | hypothesis true)"),
    likelihood_if_false: unitInterval().optional().describe("P(evidence | hypothesis false)"),
    corroborated_by: z
      .array(looseInteger({ min: 0 }))
      .optional()
      .describe("assess: indexes of other items that corroborate this one ([] = none)"),
    chain_of_custody: z
      .union([chainOfCustodySchema, unitInterval()])
      .optional()
      .describe("assess: intact, partial, broken, unknown, or a completeness fraction 0..1"),
  }),
);

export const evidenceInputSchema = lazySchema(() =>
  z
    .object({
      type: evidenceTypeSchema
        .default("assess")
        .describe("assess=evidence quality evaluation, probabilistic=Bayesian belief update"),
      claim: z.string().trim().min(1).optional().describe("For assess"),
      hypothesis: z.string().trim().min(1).optional().describe("For probabilistic"),
      prior: unitInterval().optional().describe("Prior probability P(H); estimated by the model when omitted"),
      evidence: z
        .array(evidenceItemSchema)
        .min(1, "give at least 1 evidence item")
        .max(evidenceLimits.items, `at most ${evidenceLimits.items} evidence items`),
      sensitivity_delta: looseNumber(z.number().min(0).max(0.5))
        .default(0.05)
        .describe("probabilistic: ± change of every likelihood for the reported interval"),
      credibility_weights: z
        .object({
          source: looseNumber(z.number().min(0)),
          corroboration: looseNumber(z.number().min(0)),
          custody: looseNumber(z.number().min(0)),
        })
        .optional()
        .describe("assess: relative weights of the credibility components (default 0.5/0.25/0.25)"),
      session_id: z.string().min(1).optional(),
      context: z.string().optional(),
    })
    .superRefine(requireTypeFields({ assess: ["claim"], probabilistic: ["hypothesis"] }))
    .superRefine((value, context) => {
      const count = value.evidence.length;
      value.evidence.forEach((item, index) => {
        if (item.likelihood_if_true === 0 && item.likelihood_if_false === 0) {
          context.addIssue({
            code: "custom",
            path: ["evidence", index, "likelihood_if_false"],
            message:
              "likelihood_if_true and likelihood_if_false are both 0, so the evidence could not have been observed; give at least one a positive probability",
          });
        }
        item.corroborated_by?.forEach((other, position) => {
          if (other >= count) {
            context.addIssue({
              code: "custom",
              path: ["evidence", index, "corroborated_by", position],
              message: `must be the index of another item (0..${count - 1}), got ${other}`,
            });
          } else if (other === index) {
            context.addIssue({
              code: "custom",
              path: ["evidence", index, "corroborated_by", position],
              message: "is the item itself; an item cannot corroborate itself",
            });
          }
        });
      });
      const weights = value.credibility_weights;
      if (weights !== undefined && weights.source + weights.corroboration + weights.custody === 0) {
        context.addIssue({
          code: "custom",
          path: ["credibility_weights"],
          message: "every weight is 0; give at least one component a positive weight",
        });
      }
    }),
);

export const evidenceAssessmentSchema = lazySchema(() =>
  z.object({
    index: z.number().int(),
    content: z.string(),
    credibility_score: z.number().min(0).max(1),
    source_tier: sourceTypeSchema,
    corroborated_by: z.array(z.number().int()),
    source_score: z.number(),
    corroboration_count: z.number().int().describe("Distinct independent sources among corroborated_by"),
    corroboration_score: z.number(),
    chain_of_custody: z.string(),
    custody_score: z.number(),
    estimated: z
      .array(z.enum(["source_type", "corroborated_by", "chain_of_custody"]))
      .describe("Inputs the model supplied for this item"),
    rationale: z.string().optional().describe("The model's reason for the inputs it supplied"),
  }),
);

export const bayesStepSchema = lazySchema(() =>
  z.object({
    index: z.number().int(),
    content: z.string(),
    likelihood_if_true: z.number(),
    likelihood_if_false: z.number(),
    likelihood_ratio: z.number().nullable().describe("null when likelihood_if_false is 0 (infinite ratio)"),
    prior: z.number().describe("P(H) before this item"),
    posterior: z.number().describe("P(H) after this item"),
    estimated: z.boolean().describe("True when the model estimated this item's likelihoods (some or all)"),
    rationale: z.string().optional(),
  }),
);

export const evidenceOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    thought_id: z.string().describe("The recorded result (its metadata holds every computed number)"),
    type: evidenceTypeSchema,
    overall_credibility: z.number().min(0).max(1).optional().describe("assess: mean item credibility"),
    evidence_assessments: z.array(evidenceAssessmentSchema).optional().describe("For assess type"),
    credibility_formula: z.string().optional(),
    credibility_weights: z.object({ source: z.number(), corroboration: z.number(), custody: z.number() }).optional(),
    posterior: z.number().min(0).max(1).optional().describe("For probabilistic"),
    prior: z.number().min(0).max(1).optional().describe("For probabilistic"),
    prior_estimated: z.boolean().optional().describe("True when the model estimated the prior"),
    likelihood_ratio: z.number().nullable().optional().describe("Combined Π P(E|H)/P(E|¬H); null when infinite"),
    log10_likelihood_ratio: z.number().nullable().optional().describe("Weight of evidence in bans; null when infinite"),
    entropy: z.number().optional().describe("Binary entropy of the posterior in bits (0 certain, 1 = 50/50)"),
    confidence_interval: z
      .object({ lower: z.number(), upper: z.number(), delta: z.number(), meaning: z.string() })
      .optional()
      .describe("Likelihood-sensitivity interval (not a sampling confidence interval)"),
    steps: z.array(bayesStepSchema).optional(),
    assumptions: z.array(z.string()).optional(),
    synthesis: z.string(),
  }),
);

export const evidenceTool = defineTool({
  name: "reasoning_evidence",
  description:
    "Evidence quality assessment and Bayesian inference; every number is computed in code. Types: ASSESS scores each item's credibility from its source tier, independent corroboration and chain of custody, and the claim's overall support; PROBABILISTIC updates the prior through each item's likelihoods (conditionally independent) to the posterior, with the combined likelihood ratio and a sensitivity interval. The model supplies only what you leave out (source types, corroboration, custody, prior, likelihoods), marked as estimated; give them all to skip the model. Recorded in the session.",
  inputSchema: evidenceInputSchema,
  outputSchema: evidenceOutputSchema,
  // Records the result as a thought, so neither read-only nor idempotent (the design doc said both).
  annotations: {
    title: "Evidence Assessment",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: evidenceTypeSchema.options,
  usesModel: true,
});

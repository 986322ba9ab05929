import { z } from "zod";
import { looseBoolean } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

export const detectTypeSchema = lazySchema(() => z.enum(["biases", "fallacies"]));
export type DetectType = z.infer<typeof detectTypeSchema>;

/** Cognitive biases reasoning_detect looks for (ids as used in `check_types` and in `detections[].type`). */
export const biasTypes = [
  "confirmation_bias",
  "anchoring",
  "availability_heuristic",
  "sunk_cost_fallacy",
  "overconfidence",
  "hindsight_bias",
  "bandwagon_effect",
  "framing_effect",
  "status_quo_bias",
  "survivorship_bias",
  "planning_fallacy",
  "halo_effect",
  "base_rate_neglect",
  "authority_bias",
  "recency_bias",
  "optimism_bias",
] as const;

/** Formal fallacies: errors in the logical form of an argument. */
export const formalFallacyTypes = [
  "affirming_the_consequent",
  "denying_the_antecedent",
  "undistributed_middle",
  "affirming_a_disjunct",
  "non_sequitur",
] as const;

/** Informal fallacies: errors of content, relevance or presumption. */
export const informalFallacyTypes = [
  "ad_hominem",
  "straw_man",
  "false_dichotomy",
  "appeal_to_authority",
  "circular_reasoning",
  "slippery_slope",
  "hasty_generalization",
  "red_herring",
  "appeal_to_popularity",
  "tu_quoque",
  "false_cause",
  "appeal_to_emotion",
  "equivocation",
  "appeal_to_ignorance",
  "no_true_scotsman",
  "loaded_question",
] as const;

export const detectionCategorySchema = lazySchema(() => z.enum(["cognitive", "formal", "informal"]));
export type DetectionCategory = z.infer<typeof detectionCategorySchema>;

/** The category of a known bias or fallacy id; undefined for an unknown id. */
export function detectionCategoryOf(type: string): DetectionCategory | undefined {
  if ((biasTypes as readonly string[]).includes(type)) return "cognitive";
  if ((formalFallacyTypes as readonly string[]).includes(type)) return "formal";
  if ((informalFallacyTypes as readonly string[]).includes(type)) return "informal";
  return undefined;
}

/** "Sunk-cost fallacy" and "sunk_cost_fallacy" name the same type. */
function normalizeTypeName(value: unknown): unknown {
  if (typeof value !== "string") return value;
  return value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");
}

export const detectSeveritySchema = lazySchema(() => z.enum(["low", "medium", "high", "critical"]));
export type DetectSeverity = z.infer<typeof detectSeveritySchema>;

export const detectInputSchema = lazySchema(() =>
  z
    .object({
      type: detectTypeSchema.describe("biases=cognitive bias detection, fallacies=logical fallacy detection"),
      content: z.string().trim().min(1, "content must not be empty").optional().describe("Text to analyse"),
      thought_id: z.string().min(1).optional().describe("Analyse this recorded thought instead of content"),
      session_id: z
        .string()
        .min(1)
        .optional()
        .describe(
          "Session to record the result in; alone (no content/thought_id) analyses the session's recent thoughts",
        ),
      check_types: z
        .array(z.preprocess(normalizeTypeName, z.string().min(1, "a check type must not be empty")))
        .min(1, "check_types must list at least one type; omit it to check every type")
        .optional()
        .describe("Only look for these types (ids such as confirmation_bias, straw_man)"),
      check_formal: looseBoolean().default(true).describe("For fallacies: include formal fallacies"),
      check_informal: looseBoolean().default(true).describe("For fallacies: include informal fallacies"),
    })
    .superRefine((value, context) => {
      if (value.content === undefined && value.thought_id === undefined && value.session_id === undefined) {
        context.addIssue({
          code: "custom",
          path: ["content"],
          message:
            "pass content (the text to analyse), thought_id (a recorded thought) or session_id (its recent thoughts)",
        });
      }
      if (value.content !== undefined && value.thought_id !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["thought_id"],
          message: "pass either content or thought_id, not both",
        });
      }
      if (value.type === "fallacies" && !value.check_formal && !value.check_informal) {
        context.addIssue({
          code: "custom",
          path: ["check_formal"],
          message:
            "check_formal and check_informal are both false, so nothing would be checked; set at least one to true",
        });
      }
      const valid: readonly string[] =
        value.type === "biases" ? biasTypes : [...formalFallacyTypes, ...informalFallacyTypes];
      value.check_types?.forEach((type, index) => {
        const category = detectionCategoryOf(type);
        if (category === undefined || !valid.includes(type)) {
          const what = value.type === "biases" ? "bias" : "fallacy";
          const wrongKind =
            category === undefined
              ? ""
              : ` ('${type}' is ${category === "cognitive" ? "a bias" : "a fallacy"}, but type is '${value.type}')`;
          context.addIssue({
            code: "custom",
            path: ["check_types", index],
            message: `unknown ${what} '${type}'${wrongKind}; valid ${value.type}: ${valid.join(", ")}`,
          });
          return;
        }
        if (category === "formal" && !value.check_formal) {
          context.addIssue({
            code: "custom",
            path: ["check_types", index],
            message: `'${type}' is a formal fallacy but check_formal is false`,
          });
        }
        if (category === "informal" && !value.check_informal) {
          context.addIssue({
            code: "custom",
            path: ["check_types", index],
            message: `'${type}' is an informal fallacy but check_informal is false`,
          });
        }
      });
    }),
);

export const detectionSchema = lazySchema(() =>
  z.object({
    type: z.string().describe("Id of the bias/fallacy, e.g. anchoring, straw_man"),
    category: detectionCategorySchema.describe("formal/informal for fallacies; cognitive for biases"),
    severity: detectSeveritySchema,
    confidence: z.number().min(0).max(1),
    evidence: z.string().describe("Text that triggered detection, quoted from the input (verified to occur in it)"),
    evidence_span: z
      .object({ start: z.number().int(), end: z.number().int() })
      .describe("Character offsets of the evidence in the analysed text (end exclusive)"),
    explanation: z.string(),
    remediation: z.string().describe("How to fix"),
  }),
);
export type Detection = z.infer<typeof detectionSchema>;

export const detectOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    thought_id: z.string().describe("The recorded result (its metadata holds the detections)"),
    type: detectTypeSchema,
    checked_types: z.array(z.string()).describe("The types that were searched for"),
    analyzed: z.object({
      source: z.enum(["content", "thought", "session"]),
      thought_ids: z.array(z.string()).describe("Thoughts whose text was analysed (empty for content)"),
      characters: z.number().int(),
    }),
    detections: z.array(detectionSchema),
    discarded: z
      .array(z.object({ type: z.string(), evidence: z.string(), reason: z.string() }))
      .describe("Model detections dropped because their quoted evidence does not occur in the analysed text"),
    summary: z.string(),
    overall_quality: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "Π over detections of (1 − severity_weight × confidence); weights low 0.05, medium 0.15, high 0.3, critical 0.5",
      ),
  }),
);

export const detectTool = defineTool({
  name: "reasoning_detect",
  description:
    "Analyze reasoning for cognitive errors. Types: BIASES detects confirmation bias, anchoring, availability heuristic, sunk cost fallacy, etc. with severity scores and remediation suggestions; FALLACIES identifies ad hominem, straw man, false dichotomy, appeal to authority, circular reasoning with formal (check_formal) and informal (check_informal) categories. check_types narrows the search to the listed ids. Every detection quotes evidence that is verified to occur in the analysed text (content, a thought_id, or a session's recent thoughts); unverifiable detections are reported as discarded. overall_quality is computed from severities and confidences. The result is recorded in the session.",
  inputSchema: detectInputSchema,
  outputSchema: detectOutputSchema,
  // Records the result as a thought, so neither read-only nor idempotent (the design doc said both).
  annotations: {
    title: "Bias/Fallacy Detection",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: detectTypeSchema.options,
  usesModel: true,
});

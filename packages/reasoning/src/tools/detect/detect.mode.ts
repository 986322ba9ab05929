import { detectSeveritySchema, type DetectType } from "@deliberate/contracts";
import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";

/** The `detect` mode and its default model settings, declared on every `detect` definition (the engine layers configuration and runtime overrides on top). */
export const detectModeDeclaration: ModeDeclaration = {
  mode: "detect",
  settings: { temperature: 0.5, maxTokens: 3000 },
};

/** What each bias or fallacy id means, for the prompt (categories come from contracts). */
export const detectCatalogue: Readonly<Record<string, string>> = {
  confirmation_bias: "favouring information that confirms an existing belief and discounting what contradicts it",
  anchoring: "over-relying on the first number or fact encountered when estimating or deciding",
  availability_heuristic: "judging likelihood by how easily examples come to mind (vivid, recent, memorable)",
  sunk_cost_fallacy: "continuing because of what was already invested rather than future costs and benefits",
  overconfidence: "certainty beyond what the evidence supports; too-narrow ranges, no stated uncertainty",
  hindsight_bias: "treating an outcome as having been predictable after learning it",
  bandwagon_effect: "adopting a view because many others hold it",
  framing_effect: "a conclusion that flips with how the same facts are presented (loss vs gain)",
  status_quo_bias: "preferring the current state only because it is current",
  survivorship_bias: "drawing conclusions from the cases that survived a selection, ignoring those that did not",
  planning_fallacy: "underestimating time, cost or risk of one's own plans despite past overruns",
  halo_effect: "letting one good (or bad) trait colour judgements of unrelated traits",
  base_rate_neglect: "ignoring how common something is in general when judging a specific case",
  authority_bias: "giving a claim extra weight because of who said it, beyond their relevant expertise",
  recency_bias: "overweighting the latest events relative to the longer record",
  optimism_bias: "expecting good outcomes for oneself more than the evidence warrants",
  affirming_the_consequent: "if P then Q; Q; therefore P",
  denying_the_antecedent: "if P then Q; not P; therefore not Q",
  undistributed_middle: "all A are C; all B are C; therefore all A are B",
  affirming_a_disjunct: "P or Q; P; therefore not Q (when 'or' is inclusive)",
  non_sequitur: "a conclusion that does not follow from the premises given",
  ad_hominem: "attacking the person instead of the argument",
  straw_man: "refuting a distorted version of the opposing position",
  false_dichotomy: "presenting two options as the only ones when others exist",
  appeal_to_authority: "claiming something is true because an authority (often outside their field) says so",
  circular_reasoning: "the conclusion is assumed in the premises",
  slippery_slope: "claiming one step inevitably leads to an extreme outcome without showing the chain",
  hasty_generalization: "a general conclusion from too few or unrepresentative cases",
  red_herring: "introducing an irrelevant point to divert from the issue",
  appeal_to_popularity: "claiming something is true or good because many believe or do it",
  tu_quoque: "dismissing a criticism because the critic is guilty of the same",
  false_cause: "assuming causation from correlation or sequence (post hoc)",
  appeal_to_emotion: "persuading through emotion in place of evidence",
  equivocation: "using one word in two senses within the argument",
  appeal_to_ignorance: "claiming something is true because it has not been proven false (or vice versa)",
  no_true_scotsman: "redefining a category to exclude counterexamples",
  loaded_question: "a question that presupposes an unproven claim",
};

/** Most detections one answer may list. */
export const maxDetections = 20;

export interface DetectPromptInput {
  type: DetectType;
  text: string;
  types: readonly string[];
}

export interface DetectAnswer {
  detections: Array<{
    type: string;
    severity: z.infer<typeof detectSeveritySchema>;
    confidence: number;
    evidence: string;
    explanation: string;
    remediation: string;
  }>;
}

/**
 * The detect mode for one call: the answer's `type` is constrained to the
 * types being checked, so `check_types` narrows what the model may report.
 */
export function createDetectMode(
  type: DetectType,
  types: readonly string[],
): ModeDefinition<DetectPromptInput, DetectAnswer> {
  const typeSchema = z.enum(types as [string, ...string[]]);
  const what = type === "biases" ? "cognitive biases" : "logical fallacies";
  return defineMode({
    ...detectModeDeclaration,
    name: type === "biases" ? "detect_biases" : "detect_fallacies",
    description: `The ${what} present in the text, each with a verbatim quote as evidence.`,
    system: [
      `You audit reasoning for ${what} on behalf of another AI agent.`,
      "Report only instances you can point to in the text. For each: the type id (only from the list given), a severity (low, medium, high, critical: how much it could distort the conclusion), your confidence 0..1, the evidence, an explanation of why it is that error, and a concrete remediation.",
      "The evidence must be copied verbatim from the text: one contiguous passage, exactly as written, without quotation marks of your own. If you must skip words, join two verbatim passages with '...'. Quotes that do not occur in the text are discarded.",
      "If the text has none of the listed errors, return an empty list. Do not report the same passage twice for one type.",
    ].join("\n"),
    prompt: (input: DetectPromptInput) =>
      [
        `Check only for these ${what}:`,
        ...input.types.map((id) => `- ${id}: ${detectCatalogue[id] ?? id}`),
        "",
        "Text to analyse (between the markers):",
        "<<<TEXT",
        input.text,
        "TEXT>>>",
      ].join("\n"),
    output: z.object({
      detections: z
        .array(
          z.object({
            type: typeSchema.describe("Id of the bias/fallacy, from the list given"),
            severity: detectSeveritySchema,
            confidence: z.number().min(0).max(1),
            evidence: z.string().min(1).describe("Verbatim quote from the text"),
            explanation: z.string().min(1),
            remediation: z.string().min(1).describe("How to fix the reasoning"),
          }),
        )
        .max(maxDetections),
    }),
  });
}

import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";

/** The reasoning types of `reasoning/executeTask` (spec §1.2.1). */
export const reasoningTypeSchema = lazySchema(() =>
  z.enum(["inductive", "deductive", "abductive", "planAndExecuteCoT"]),
);
export type ReasoningType = z.infer<typeof reasoningTypeSchema>;

/** Chain-of-thought variations the server can apply to its answer step. */
export const cotVariationSchema = lazySchema(() =>
  z.enum(["standardCoT", "selfConsistency", "selfAsk", "treeOfThoughts_basic"]),
);
export type CoTVariation = z.infer<typeof cotVariationSchema>;

/** What the response carries: an answer with its trace, or a plan with prompts for the host's model. */
export const outputFormatSchema = lazySchema(() => z.enum(["finalAnswerWithTrace", "detailedPlanWithPrompts"]));
export type OutputFormat = z.infer<typeof outputFormatSchema>;

/** Where a call ended. */
export const executeTaskStatusSchema = lazySchema(() =>
  z.enum(["completed", "failed", "pending_tool_call", "pending_user_input", "max_iterations_reached"]),
);
export type ExecuteTaskStatus = z.infer<typeof executeTaskStatusSchema>;

/**
 * Confidence methods: the model's verbalized confidence, self-consistency
 * agreement and graph support are components; `combined` is their documented
 * weighted mean over the components measured.
 */
export const confidenceMethodSchema = lazySchema(() =>
  z.enum(["verbalizedConfidence", "selfConsistency", "graphSupport", "combined"]),
);
export type ConfidenceMethod = z.infer<typeof confidenceMethodSchema>;

/**
 * How far a graph element is to be trusted: `asserted` (stated by the host,
 * its context, a tool result or the user), `derived` (deduced by code from
 * explicit rules: certain given the rules and premises), `hypothesized`
 * (an inductive or abductive proposal: plausible, not certain), `retracted`
 * (kept for provenance, no longer believed).
 */
export const validitySchema = lazySchema(() => z.enum(["asserted", "derived", "hypothesized", "retracted"]));
export type Validity = z.infer<typeof validitySchema>;

/**
 * What a fact rests on, kept by code: `asserted` (stated by the host, its
 * context, a tool result or the user), `derived` (deduced by rules from
 * asserted or derived facts only: a proof), `hypothetical` (an inductive or
 * abductive proposal), `derived_from_hypothesis` (deduced with at least one
 * hypothetical premise). A derivation keeps the weakest status of its premises.
 */
export const epistemicStatusSchema = lazySchema(() =>
  z.enum(["asserted", "derived", "hypothetical", "derived_from_hypothesis"]),
);
export type EpistemicStatus = z.infer<typeof epistemicStatusSchema>;

/** What produced a graph element (`host_data`: the facts and rules of `contextData.facts` / `contextData.rules`). */
export const provenanceKindSchema = lazySchema(() =>
  z.enum(["seed", "extraction", "tool_result", "user_input", "induction", "deduction", "abduction", "host_data"]),
);
export type ProvenanceKind = z.infer<typeof provenanceKindSchema>;

/** Lifecycle of a knowledge-graph session. */
export const knowledgeGraphSessionStateSchema = lazySchema(() =>
  z.enum(["active", "pending_tool_call", "pending_user_input", "ended", "expired"]),
);
export type KnowledgeGraphSessionState = z.infer<typeof knowledgeGraphSessionStateSchema>;

/** The custom JSON-RPC methods the knowledge-graph module serves. */
export const knowledgeGraphMethods = {
  executeTask: "reasoning/executeTask",
  endSession: "reasoning/endSession",
} as const;

/** Bounds on requests, so one call cannot ask for unbounded work or send unbounded text. */
export const knowledgeGraphRequestLimits = {
  taskIdLength: 200,
  sessionIdLength: 128,
  goalQueryLength: 8_000,
  contextTextLength: 200_000,
  availableTools: 64,
  toolResults: 16,
  userInputLength: 20_000,
  maxSteps: 50,
} as const;

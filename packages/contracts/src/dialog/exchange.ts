import { z } from "zod";
import { dialogActSchema } from "./agent.ts";
import { lazySchema } from "../lazy-schema.ts";

/** Where a session stands (the spec's get_session_status statuses, plus expired: idle past its timeout, no exchange can run). */
export const dialogSessionStatusSchema = lazySchema(() =>
  z.enum(["started", "in_progress", "completed", "error", "expired"]),
);
export type DialogSessionStatus = z.infer<typeof dialogSessionStatusSchema>;

/** What an exchange decided (the spec's statuses, plus budget_exhausted). */
export const dialogExchangeStatusSchema = lazySchema(() =>
  z.enum(["in_progress", "threshold_met", "max_iterations", "budget_exhausted"]),
);
export type DialogExchangeStatus = z.infer<typeof dialogExchangeStatusSchema>;

/** Why a finished session stopped. */
export const dialogStopReasonSchema = lazySchema(() => z.enum(["threshold_met", "max_iterations", "budget_exhausted"]));
export type DialogStopReason = z.infer<typeof dialogStopReasonSchema>;

/**
 * Who gave the scores that decided an iteration: `server_model` (a separate review call to the
 * server's model, with the reviewer's persona), `host` (the calling agent answered the review
 * prompt itself, host-executed: it also wrote the document) or `sampling` (the client's model
 * through MCP sampling, which also wrote the document). Only `server_model` is an independent review.
 */
export const dialogGradedBySchema = lazySchema(() => z.enum(["server_model", "host", "sampling"]));
export type DialogGradedBy = z.infer<typeof dialogGradedBySchema>;

/** Scores are reported to three decimals (computed sums such as 0.5700000000000001 are not). */
export const dialogScoreDecimals = 3;

export const dialogConsciousnessStateSchema = lazySchema(() => z.enum(["analyzing", "synthesizing", "breakthrough"]));
export type DialogConsciousnessState = z.infer<typeof dialogConsciousnessStateSchema>;

/** One agent turn (the spec's Exchange, with where it sits and the agent's structured answer). */
export const dialogExchangeSchema = lazySchema(() =>
  z.object({
    agent: z.string(),
    role: z
      .enum(["initiator", "responder"])
      .describe("initiator: the iteration's first step; responder: every later step"),
    content: z.string().describe("The document (produce, merge) or the review rendered as Markdown"),
    tokens: z.object({
      input: z.number().int(),
      output: z.number().int(),
      estimated: z
        .boolean()
        .describe("True when the provider reported no usage (host-executed) and the figures are characters / 4"),
    }),
    timestamp: z.string().describe("ISO 8601; when the answer arrived"),
    consciousness_state: dialogConsciousnessStateSchema
      .optional()
      .describe(
        "analyzing (review, first analysis), synthesizing (refine, merge), breakthrough (a review that crossed the threshold or rose by 0.2)",
      ),
    iteration: z.number().int(),
    step: z.number().int().describe("Step of the iteration's plan; turns of one step ran concurrently"),
    act: dialogActSchema,
    model: z.string().nullable().describe("The model that answered"),
    answer: z
      .record(z.string(), z.unknown())
      .describe(
        "The agent's structured answer, without the document text (that is content): self_assessment for produce and merge; scores and directives for review",
      ),
  }),
);
export type DialogExchange = z.infer<typeof dialogExchangeSchema>;

export const dialogDirectiveSchema = lazySchema(() =>
  z.object({
    agent: z.string().describe("The reviewer"),
    criterion: z.string().describe("The rubric criterion it improves"),
    directive: z.string(),
  }),
);

/** One reviewer's rubric: a score per criterion and their weighted mean (computed in code). */
export const dialogReviewScoreSchema = lazySchema(() =>
  z.object({
    agent: z.string(),
    score: z.number().min(0).max(1).describe("Weighted mean of the criteria, computed in code"),
    criteria: z.record(z.string(), z.number().min(0).max(1)),
  }),
);

/** The quality of one iteration: the reviewers' score decides; the author's own grade is recorded beside it. */
export const dialogIterationQualitySchema = lazySchema(() =>
  z.object({
    iteration: z.number().int(),
    reviewer_score: z.number().min(0).max(1).describe("Mean of the final step's reviewer scores; what stopping uses"),
    self_assessment: z
      .number()
      .min(0)
      .max(1)
      .describe("The document author's grade of its own work (recorded, not used to stop)"),
    criteria: z.record(z.string(), z.number().min(0).max(1)).describe("Mean score per criterion over the reviewers"),
    reviews: z.array(dialogReviewScoreSchema),
    tokens: z.number().int().describe("Tokens the iteration spent (summary included)"),
    graded_by: dialogGradedBySchema
      .nullable()
      .describe("Who gave the reviewer scores (see graded_by); null for iterations recorded before this was kept"),
  }),
);
export type DialogIterationQuality = z.infer<typeof dialogIterationQualitySchema>;

export const dialogCriterionSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    weight: z.number().describe("Share of the combined score; the weights sum to 1"),
    description: z.string(),
  }),
);

/** The stopping rules in force. */
export const dialogStoppingSchema = lazySchema(() =>
  z.object({
    max_iterations: z.number().int(),
    quality_threshold: z.number(),
    token_budget: z.number().int().nullable(),
    wall_time_budget_seconds: z.number().int().nullable(),
  }),
);

import { z } from "zod";
import { looseInteger } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import {
  dialogDirectiveSchema,
  dialogExchangeSchema,
  dialogExchangeStatusSchema,
  dialogGradedBySchema,
  dialogIterationQualitySchema,
} from "./exchange.ts";
import { lazySchema } from "../lazy-schema.ts";

export const runReasoningExchangeInputSchema = lazySchema(() =>
  z.strictObject({
    session_id: z.string().trim().min(1, "session_id must not be empty").describe("From start_reasoning_session"),
    iteration: looseInteger({ min: 0 })
      .optional()
      .describe("The iteration to run; must be the next one (auto-incremented if omitted)"),
  }),
);

export const runReasoningExchangeOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    iteration: z.number().int(),
    exchanges: z.array(dialogExchangeSchema).describe("Every turn of this iteration, in plan order"),
    quality_score: z
      .number()
      .min(0)
      .max(1)
      .describe("The reviewers' rubric score of the iteration's document, combined in code"),
    should_continue: z.boolean(),
    status: dialogExchangeStatusSchema,
    next_step: z.string(),
    quality: dialogIterationQualitySchema,
    directives: z.array(dialogDirectiveSchema).describe("What the next iteration must incorporate"),
    document_exchange: z
      .number()
      .int()
      .describe(
        "Index in exchanges of the turn that wrote the iteration's document (the one reviewed): its content is the document, carried once",
      ),
    graded_by: dialogGradedBySchema.describe(
      "Who scored the document: server_model (separate review calls), host or sampling (the calling client answered every agent's prompt, the review included, so the score is not an independent review)",
    ),
    budget: z.object({
      tokens_used: z.number().int().describe("Tokens of the whole session so far"),
      token_budget: z.number().int().nullable(),
      elapsed_seconds: z.number().describe("Since the session started (to the millisecond)"),
      wall_time_budget_seconds: z.number().int().nullable(),
    }),
    summary: z
      .object({ through_iteration: z.number().int(), tokens: z.number().int() })
      .optional()
      .describe("Present when earlier exchanges were summarised to fit the context budget"),
    shortened_documents: z
      .array(
        z.object({
          step: z.number().int().describe("The step whose prompts showed the document shortened"),
          author: z.string(),
          iteration: z.number().int(),
          shown_characters: z.number().int(),
          total_characters: z.number().int(),
        }),
      )
      .optional()
      .describe(
        "Present when a document was larger than the context budget: those prompts showed its start and end; the whole document is stored and returned",
      ),
  }),
);

export const runReasoningExchangeTool = defineTool({
  name: "run_reasoning_exchange",
  description:
    "Run one iteration of a reasoning session. Iteration 0: the producer analyses the topic, the reviewer returns 2-3 directives; later: the producer writes the complete refined document, the reviewer reviews it (larger presets follow their plan). quality_score: the reviewers' rubric score (weighted in code); the author's self-assessment is recorded beside it. graded_by: server_model, or host/sampling (the calling client played every agent). The document appears once: exchanges[document_exchange].content. status: in_progress, threshold_met, max_iterations or budget_exhausted. Overflowing context is summarised. Errors: unknown session (NOT_FOUND), finished or expired session or wrong iteration (CONFLICT). No server model: needs_completion prompts (answer via reasoning_submit).",
  inputSchema: runReasoningExchangeInputSchema,
  outputSchema: runReasoningExchangeOutputSchema,
  annotations: {
    title: "Run Reasoning Exchange",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: [],
  usesModel: true,
});

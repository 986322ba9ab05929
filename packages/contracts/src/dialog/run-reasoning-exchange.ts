import { z } from "zod";
import { looseInteger } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { dialogDirectiveSchema, dialogExchangeSchema, dialogExchangeStatusSchema, dialogIterationQualitySchema } from "./exchange.ts";

export const runReasoningExchangeInputSchema = z.object({
  session_id: z.string().trim().min(1, "session_id must not be empty").describe("From start_reasoning_session"),
  iteration: looseInteger({ min: 0 }).optional().describe("The iteration to run; must be the next one (auto-incremented if omitted)"),
});

export const runReasoningExchangeOutputSchema = z.object({
  session_id: z.string(),
  iteration: z.number().int(),
  exchanges: z.array(dialogExchangeSchema).describe("Every turn of this iteration, in plan order"),
  quality_score: z.number().min(0).max(1).describe("The reviewers' rubric score of the iteration's document, combined in code"),
  should_continue: z.boolean(),
  status: dialogExchangeStatusSchema,
  next_step: z.string(),
  quality: dialogIterationQualitySchema,
  directives: z.array(dialogDirectiveSchema).describe("What the next iteration must incorporate"),
  document: z.string().describe("The iteration's document (the one reviewed)"),
  budget: z.object({
    tokens_used: z.number().int().describe("Tokens of the whole session so far"),
    token_budget: z.number().int().nullable(),
    elapsed_seconds: z.number().describe("Since the session started"),
    wall_time_budget_seconds: z.number().int().nullable(),
  }),
  summary: z
    .object({ through_iteration: z.number().int(), tokens: z.number().int() })
    .optional()
    .describe("Present when earlier exchanges were summarised to fit the context budget"),
});

export const runReasoningExchangeTool = defineTool({
  name: "run_reasoning_exchange",
  description:
    "Run one iteration of a reasoning session. Iteration 0: the producer analyses the topic and context and the reviewer returns 2-3 directives; each later iteration: the producer writes the complete refined document incorporating every directive and the reviewer reviews it. Presets with more agents follow their plan (e.g. synthesis: think and dialog write concurrently, the synthesizer merges, both review). Every answer is structured; quality_score is the reviewers' rubric score (each criterion 0..1, weighted in code), the author's self-assessment is recorded beside it. status: in_progress, threshold_met, max_iterations or budget_exhausted; should_continue and next_step say what to do. When the conversation would exceed the context budget, earlier exchanges are summarised first. Errors: unknown session_id (NOT_FOUND), finished or expired session, or iteration not the next one (CONFLICT). Without a server model it returns needs_completion prompts (answer them via reasoning_submit).",
  inputSchema: runReasoningExchangeInputSchema,
  outputSchema: runReasoningExchangeOutputSchema,
  annotations: { title: "Run Reasoning Exchange", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  operations: [],
  usesModel: true,
});

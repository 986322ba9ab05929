import { z } from "zod";
import { looseBoolean } from "../coerce.ts";
import { sessionPageQuerySchema, sessionPageSchema } from "../session-page.ts";
import { defineTool } from "../tool-definition.ts";
import { dialogPresetNameSchema } from "./agent.ts";
import {
  dialogDirectiveSchema,
  dialogExchangeSchema,
  dialogGradedBySchema,
  dialogIterationQualitySchema,
  dialogStopReasonSchema,
} from "./exchange.ts";
import { lazySchema } from "../lazy-schema.ts";

export const dialogResultFormatSchema = lazySchema(() => z.enum(["markdown", "json", "structured"]));
export type DialogResultFormat = z.infer<typeof dialogResultFormatSchema>;

export const getReasoningResultInputSchema = lazySchema(() =>
  z.strictObject({
    session_id: z.string().trim().min(1, "session_id must not be empty"),
    format: dialogResultFormatSchema
      .default("markdown")
      .describe(
        "markdown: a report (document, quality trajectory, open directives); json: the same as JSON text; structured: the document as result, the report as the structured field",
      ),
    include_full_exchange: looseBoolean()
      .default(false)
      .describe("Include the session's turns, one page of them (default false)"),
    limit: sessionPageQuerySchema.shape.limit.describe(
      "Turns per page with include_full_exchange (default 100, at most 1000)",
    ),
    offset: sessionPageQuerySchema.shape.offset.describe(
      "Turns to skip with include_full_exchange: pass page.next_offset for the next page",
    ),
  }),
);

/** Where the session ended up: the document returned, how it was graded. */
const dialogResultDocumentFields = {
  document_iteration: z
    .number()
    .int()
    .nullable()
    .describe(
      "The iteration whose document is returned: the best-scoring one (the latest of equal scores); null before the first exchange",
    ),
  graded_by: dialogGradedBySchema
    .nullable()
    .describe(
      "Who scored the returned document: server_model (separate review calls), or host / sampling (the calling client played every agent, review included: not an independent review); null before the first exchange",
    ),
};

/** The result as data (what format json serialises and format structured returns). */
export const dialogStructuredResultSchema = lazySchema(() =>
  z.object({
    topic: z.string(),
    mode: dialogPresetNameSchema,
    document: z
      .string()
      .describe("The best-scoring iteration's document (see document_iteration); empty before the first exchange"),
    ...dialogResultDocumentFields,
    open_directives: z
      .array(dialogDirectiveSchema)
      .describe("The returned document's review directives, not incorporated in it"),
    quality_trajectory: z.array(dialogIterationQualitySchema),
    stop_reason: dialogStopReasonSchema.nullable(),
  }),
);

export const getReasoningResultOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    status: z
      .enum(["completed", "in_progress", "expired"])
      .describe("completed once stopped (stop_reason says why); expired when idle past its timeout before stopping"),
    result: z.string().describe("The returned document in the requested format"),
    quality_metrics: z.object({
      final_quality: z
        .number()
        .min(0)
        .max(1)
        .nullable()
        .describe("The reviewers' score of the returned (best) document; null before the first exchange"),
      last_quality: z.number().min(0).max(1).nullable().describe("The reviewers' score of the last iteration"),
      iterations: z.number().int(),
      total_tokens: z.number().int().describe("Every token the session spent, failed exchanges included"),
      agents_used: z.array(z.string()),
      self_assessment: z.number().min(0).max(1).nullable().describe("The author's own grade of the returned document"),
    }),
    ...dialogResultDocumentFields,
    full_exchange: z
      .array(dialogExchangeSchema)
      .optional()
      .describe("With include_full_exchange: one page of turns, in iteration and plan order"),
    page: sessionPageSchema
      .optional()
      .describe("With include_full_exchange: the page of full_exchange (totals.exchanges, next_offset)"),
    format: dialogResultFormatSchema,
    stop_reason: dialogStopReasonSchema.nullable(),
    quality_trajectory: z
      .array(dialogIterationQualitySchema)
      .describe("Quality per iteration (at most maxIterations, 20)"),
    structured: dialogStructuredResultSchema.optional().describe("For format structured"),
    next_step: z.string(),
  }),
);

export const getReasoningResultTool = defineTool({
  name: "get_reasoning_result",
  description:
    "Get the result of a reasoning session: the best-scoring iteration's document (document_iteration; the latest of equal scores) in format markdown (a report with the quality trajectory and open directives), json (the same as JSON text) or structured (the document as result plus a structured object). quality_metrics: final_quality (the returned document's reviewer score), last_quality, iterations, total_tokens (every token spent), agents_used, self_assessment. graded_by: server_model, or host / sampling when the calling client played every agent. quality_trajectory: every iteration's scores. include_full_exchange adds the turns, paged with limit and offset (page.next_offset). status: completed (stop_reason says why), in_progress or expired. Read-only.",
  inputSchema: getReasoningResultInputSchema,
  outputSchema: getReasoningResultOutputSchema,
  annotations: {
    title: "Get Reasoning Result",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

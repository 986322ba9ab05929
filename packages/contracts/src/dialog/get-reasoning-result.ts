import { z } from "zod";
import { looseBoolean } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { dialogPresetNameSchema } from "./agent.ts";
import { dialogDirectiveSchema, dialogExchangeSchema, dialogIterationQualitySchema, dialogStopReasonSchema } from "./exchange.ts";

export const dialogResultFormatSchema = z.enum(["markdown", "json", "structured"]);
export type DialogResultFormat = z.infer<typeof dialogResultFormatSchema>;

export const getReasoningResultInputSchema = z.object({
  session_id: z.string().trim().min(1, "session_id must not be empty"),
  format: dialogResultFormatSchema
    .default("markdown")
    .describe("markdown: a report (document, quality trajectory, open directives); json: the same as JSON text; structured: the document as result, the report as the structured field"),
  include_full_exchange: looseBoolean().default(false).describe("Include every turn of every iteration (default false)"),
});

/** The result as data (what format json serialises and format structured returns). */
export const dialogStructuredResultSchema = z.object({
  topic: z.string(),
  mode: dialogPresetNameSchema,
  document: z.string().describe("The last iteration's document; empty before the first exchange"),
  open_directives: z.array(dialogDirectiveSchema).describe("The last review's directives, not yet incorporated"),
  quality_trajectory: z.array(dialogIterationQualitySchema),
  stop_reason: dialogStopReasonSchema.nullable(),
});

export const getReasoningResultOutputSchema = z.object({
  session_id: z.string(),
  status: z.enum(["completed", "in_progress"]),
  result: z.string().describe("The final document in the requested format"),
  quality_metrics: z.object({
    final_quality: z.number().min(0).max(1).nullable().describe("The last reviewers' score; null before the first exchange"),
    iterations: z.number().int(),
    total_tokens: z.number().int(),
    agents_used: z.array(z.string()),
    self_assessment: z.number().min(0).max(1).nullable().describe("The author's own grade of the last document"),
  }),
  full_exchange: z.array(dialogExchangeSchema).optional(),
  format: dialogResultFormatSchema,
  stop_reason: dialogStopReasonSchema.nullable(),
  quality_trajectory: z.array(dialogIterationQualitySchema).describe("Quality per iteration"),
  structured: dialogStructuredResultSchema.optional().describe("For format structured"),
  next_step: z.string(),
});

export const getReasoningResultTool = defineTool({
  name: "get_reasoning_result",
  description:
    "Get the result of a reasoning session: the last iteration's document in format markdown (a report with the quality trajectory and open directives), json (the same as JSON text) or structured (the document as result plus a structured object). quality_metrics: final_quality (the reviewers' last score; null before the first exchange), iterations, total_tokens, agents_used, and the author's self_assessment. quality_trajectory gives the reviewer score, self-assessment and per-criterion scores of every iteration. include_full_exchange adds every turn. status is completed once the session stopped (stop_reason says why), else in_progress. Read-only.",
  inputSchema: getReasoningResultInputSchema,
  outputSchema: getReasoningResultOutputSchema,
  annotations: { title: "Get Reasoning Result", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  usesModel: false,
});

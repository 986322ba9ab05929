import { z } from "zod";
import { defineTool } from "../tool-definition.ts";
import { dialogPresetNameSchema } from "./agent.ts";
import {
  dialogGradedBySchema,
  dialogSessionStatusSchema,
  dialogStoppingSchema,
  dialogStopReasonSchema,
} from "./exchange.ts";
import { lazySchema } from "../lazy-schema.ts";

export const getSessionStatusInputSchema = lazySchema(() =>
  z.strictObject({
    session_id: z.string().trim().min(1, "session_id must not be empty"),
  }),
);

export const getSessionStatusOutputSchema = lazySchema(() =>
  z.object({
    session_id: z.string(),
    status: dialogSessionStatusSchema,
    current_iteration: z.number().int().describe("Iterations completed"),
    max_iterations: z.number().int(),
    current_quality: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe("The reviewers' last score; null before the first exchange"),
    quality_threshold: z.number(),
    agents: z.array(z.string()),
    last_activity: z.string().describe("ISO 8601"),
    error: z
      .string()
      .optional()
      .describe(
        "Why the last exchange failed (status error: running the exchange again retries it; completed: it spent the token budget)",
      ),
    mode: dialogPresetNameSchema,
    stop_reason: dialogStopReasonSchema.nullable(),
    stopping: dialogStoppingSchema,
    tokens_used: z.number().int().describe("Every token the session spent, failed exchanges included"),
    graded_by: dialogGradedBySchema
      .nullable()
      .describe(
        "Who gave the last iteration's scores: server_model (separate review calls), or host / sampling (the calling client played every agent, review included: not an independent review); null before the first exchange",
      ),
    exchange_count: z
      .number()
      .int()
      .describe("Turns recorded; page through them with get_reasoning_result include_full_exchange, limit and offset"),
    expires_at: z.string().describe("ISO 8601; without activity until then the session expires"),
    expired: z.boolean().describe("True when idle past the timeout before it stopped (status expired)"),
    next_step: z.string(),
  }),
);

export const getSessionStatusTool = defineTool({
  name: "get_session_status",
  description:
    "Get the status of a reasoning session: started (no exchange yet), in_progress, completed (stop_reason: threshold_met, max_iterations or budget_exhausted), error (the last exchange failed, e.g. a model answer that could not be validated; error says why and running the exchange again retries it) or expired (idle past its timeout; no exchange can run, the result stays readable). Also current_iteration, max_iterations, current_quality (the reviewers' last score), graded_by (server_model, or host / sampling when the calling client played every agent), quality_threshold, agents, last_activity, tokens used (failed exchanges included) against the budgets, exchange_count, and when the session expires. Read-only.",
  inputSchema: getSessionStatusInputSchema,
  outputSchema: getSessionStatusOutputSchema,
  annotations: {
    title: "Get Session Status",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

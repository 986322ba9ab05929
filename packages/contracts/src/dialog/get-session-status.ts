import { z } from "zod";
import { defineTool } from "../tool-definition.ts";
import { dialogPresetNameSchema } from "./agent.ts";
import { dialogSessionStatusSchema, dialogStoppingSchema, dialogStopReasonSchema } from "./exchange.ts";

export const getSessionStatusInputSchema = z.object({
  session_id: z.string().trim().min(1, "session_id must not be empty"),
});

export const getSessionStatusOutputSchema = z.object({
  session_id: z.string(),
  status: dialogSessionStatusSchema,
  current_iteration: z.number().int().describe("Iterations completed"),
  max_iterations: z.number().int(),
  current_quality: z.number().min(0).max(1).nullable().describe("The reviewers' last score; null before the first exchange"),
  quality_threshold: z.number(),
  agents: z.array(z.string()),
  last_activity: z.string().describe("ISO 8601"),
  error: z.string().optional().describe("Why the last exchange failed, when status is error (running the exchange again retries it)"),
  mode: dialogPresetNameSchema,
  stop_reason: dialogStopReasonSchema.nullable(),
  stopping: dialogStoppingSchema,
  tokens_used: z.number().int(),
  expires_at: z.string().describe("ISO 8601; without activity until then the session expires"),
  expired: z.boolean(),
  next_step: z.string(),
});

export const getSessionStatusTool = defineTool({
  name: "get_session_status",
  description:
    "Get the status of a reasoning session: started (no exchange yet), in_progress, completed (stop_reason: threshold_met, max_iterations or budget_exhausted) or error (the last exchange failed, e.g. a model answer that could not be validated; error says why and running the exchange again retries it). Also current_iteration, max_iterations, current_quality (the reviewers' last score), quality_threshold, agents, last_activity, tokens used against the budgets, and when the session expires without activity. Read-only.",
  inputSchema: getSessionStatusInputSchema,
  outputSchema: getSessionStatusOutputSchema,
  annotations: { title: "Get Session Status", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  operations: [],
  usesModel: false,
});

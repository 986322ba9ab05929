import { z } from "zod";

/** One prompt the calling agent must answer for a suspended call to continue. */
export const pendingPromptSchema = z.object({
  id: z.string().describe("Pass this back as prompt_id"),
  name: z.string().describe("What the answer is, e.g. linear_continuation"),
  system: z.string().describe("System instructions for this prompt"),
  user: z.string().describe("The prompt itself"),
  schema: z.record(z.string(), z.unknown()).describe("JSON Schema the answer must match"),
});
export type PendingPrompt = z.infer<typeof pendingPromptSchema>;

/**
 * What a model-backed tool returns when no server-side model is configured:
 * the prompts of the current step, for the calling agent to answer through
 * reasoning_submit. The final result is the same as with a server-side model.
 */
export const needsCompletionSchema = z.object({
  status: z.literal("needs_completion"),
  resume_token: z.string().describe("Pass to reasoning_submit with the answers"),
  tool: z.string().describe("The tool whose call is suspended"),
  prompts: z.array(pendingPromptSchema).min(1),
  instructions: z.string(),
  expires_at: z.string().describe("ISO 8601; after this the call cannot be resumed"),
});
export type NeedsCompletion = z.infer<typeof needsCompletionSchema>;

/** A tool's output schema widened to "its result, or a needs-completion result". */
export function orNeedsCompletion<S extends z.ZodType>(schema: S) {
  return z.union([schema, needsCompletionSchema]);
}

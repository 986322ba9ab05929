import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";

/** One prompt the calling agent must answer for a suspended call to continue, in full. */
export const pendingPromptSchema = lazySchema(() =>
  z.object({
    id: z.string().describe("Pass this back as prompt_id"),
    name: z.string().describe("What the answer is, e.g. linear_continuation"),
    system: z.string().describe("System instructions for this prompt"),
    user: z.string().describe("The prompt itself"),
    schema: z.record(z.string(), z.unknown()).describe("JSON Schema the answer must match"),
  }),
);
export type PendingPrompt = z.infer<typeof pendingPromptSchema>;

/**
 * One prompt in the compact form: its texts and its answer's schema named by
 * id. Every block is sent once per call: in the step that first needs it
 * (`context`, `schemas`), and by id alone in later steps of the same call.
 */
export const compactPendingPromptSchema = lazySchema(() =>
  z.object({
    id: z.string().describe("Pass this back as prompt_id"),
    name: z.string().describe("What the answer is, e.g. linear_continuation"),
    system_ref: z.string().describe("Id of the context block that is this prompt's system text"),
    user_refs: z
      .array(z.string())
      .min(1)
      .describe("Ids of the context blocks that, joined with a blank line, are this prompt's user text"),
    schema_ref: z.string().describe("Id of the entry of schemas: the JSON Schema the answer must match"),
  }),
);
export type CompactPendingPrompt = z.infer<typeof compactPendingPromptSchema>;

/**
 * What a model-backed tool returns when no server-side model is configured:
 * the prompts of the current step, for the calling agent to answer through
 * reasoning_submit. The final result is the same as with a server-side model.
 * Prompts come in full (`system`, `user`, `schema`) or compact (`system_ref`,
 * `user_refs`, `schema_ref` naming blocks of `context` and `schemas`, sent
 * once per call: a block not in this step was sent in an earlier step of it).
 */
export const needsCompletionSchema = lazySchema(() =>
  z.object({
    status: z.literal("needs_completion"),
    resume_token: z.string().describe("Pass to reasoning_submit with the answers"),
    tool: z.string().describe("The tool whose call is suspended"),
    prompts: z.array(z.union([pendingPromptSchema, compactPendingPromptSchema])).min(1),
    context: z
      .record(z.string(), z.string())
      .optional()
      .describe(
        "Text blocks by id, each sent once per call: the ones this step's prompts use that no earlier step of the call sent",
      ),
    schemas: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .optional()
      .describe("JSON Schemas of answers by id, each sent once per call like context"),
    instructions: z.string(),
    expires_at: z.string().describe("ISO 8601; after this the call cannot be resumed"),
  }),
);
export type NeedsCompletion = z.infer<typeof needsCompletionSchema>;

/** A tool's output schema widened to "its result, or a needs-completion result". */
export function orNeedsCompletion<S extends z.ZodType>(schema: S) {
  return z.union([schema, needsCompletionSchema]);
}

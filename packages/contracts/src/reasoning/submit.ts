import { z } from "zod";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

export const submitInputSchema = lazySchema(() =>
  z
    .object({
      resume_token: z
        .string()
        .min(1, "resume_token must not be empty")
        .describe("The resume_token from a needs_completion result"),
      answers: z
        .array(
          z.object({
            prompt_id: z.string().min(1, "prompt_id must not be empty"),
            answer: z
              .unknown()
              .describe("An object matching the prompt's schema (a JSON string of it is accepted too)"),
          }),
        )
        .min(1, "answers must contain at least one answer")
        .optional()
        .describe("One answer per prompt of the step; required unless resend is true"),
      resend: z
        .boolean()
        .optional()
        .describe(
          "true: answer nothing and get the current step again with every context block and schema its prompts use (for a host that lost an earlier step's blocks)",
        ),
    })
    .superRefine((input, context) => {
      if (input.resend === true && input.answers !== undefined) {
        context.addIssue({
          code: "custom",
          path: ["answers"],
          message: "send either answers or resend: true, not both (resend only repeats the step)",
        });
      }
      if (input.resend !== true && input.answers === undefined) {
        context.addIssue({
          code: "custom",
          path: ["answers"],
          message:
            "answers is required: one { prompt_id, answer } per prompt of the step (or resend: true to get the step again)",
        });
      }
    }),
);

export const submitTool = defineTool({
  name: "reasoning_submit",
  description:
    "Continue a suspended reasoning call. When a reasoning tool returns status 'needs_completion' (no server-side model is configured), answer each of its prompts yourself: follow the prompt's system and user text and reply with a JSON object matching its schema (compact prompts name these by id: system_ref and user_refs in context, schema_ref in schemas; each block is sent once per call, so keep the blocks of earlier steps, or pass resend: true to get them again). Then call this tool with the resume_token and answers [{prompt_id, answer}]. The result is either the tool's final result or the next needs_completion step. Invalid answers are rejected with the problems listed; the call stays resumable.",
  inputSchema: submitInputSchema,
  // The result is the suspended tool's own output (or the next step), so it is left open here.
  outputSchema: z.record(z.string(), z.unknown()),
  annotations: {
    title: "Submit Completions",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

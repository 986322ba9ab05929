import { z } from "zod";
import { looseInteger, unitInterval } from "../coerce.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const reflectionOperationSchema = lazySchema(() => z.enum(["process", "evaluate"]));

export const reflectionInputSchema = lazySchema(() =>
  z
    .object({
      operation: reflectionOperationSchema
        .default("process")
        .describe("process=reflect on content/thought, evaluate=assess session quality"),
      content: z
        .string()
        .trim()
        .min(1, "content must not be empty")
        .optional()
        .describe("Content to reflect on (for process)"),
      thought_id: z.string().min(1).optional().describe("Existing thought to analyze"),
      session_id: z.string().min(1).optional().describe("Required for evaluate operation"),
      max_iterations: looseInteger({ min: 1, max: 5 }).default(3),
      quality_threshold: unitInterval().default(0.8),
    })
    .superRefine(requireFields({ evaluate: ["session_id"] }))
    .superRefine((value, context) => {
      if (value.operation === "process" && value.content === undefined && value.thought_id === undefined) {
        context.addIssue({
          code: "custom",
          path: ["content"],
          message:
            "operation 'process' needs content or thought_id: pass the text to reflect on, or the id of an existing thought",
        });
      }
    }),
);

export const reflectionOutputSchema = lazySchema(() =>
  z.object({
    thought_id: z.string().optional(),
    session_id: z.string().optional(),
    quality_score: z.number().min(0).max(1),
    iterations_used: z
      .number()
      .int()
      .optional()
      .describe("Revisions made (for process); 0 when the first draft already met the threshold"),
    rubric_scores: z
      .record(z.string(), z.number().min(0).max(1))
      .optional()
      .describe(
        "The final draft's score per rubric criterion (logic, evidence, completeness, clarity); quality_score is their weighted mean",
      ),
    strengths: z.array(z.string()).optional(),
    weaknesses: z.array(z.string()).optional(),
    recommendations: z.array(z.string()).optional(),
    refined_content: z.string().optional().describe("Improved reasoning (for process)"),
    coherence_score: z.number().min(0).max(1).optional().describe("Session coherence (for evaluate)"),
  }),
);

export const reflectionTool = defineTool({
  name: "reasoning_reflection",
  description:
    "Critiques and improves reasoning. Operations: PROCESS critiques content or thought_id against a rubric (logic, evidence, completeness, clarity; quality computed in code) and, while below quality_threshold, revises it, up to max_iterations revisions, each critiqued anew; the result describes the final draft. EVALUATE assesses a whole session's reasoning quality and coherence, with recommendations.",
  inputSchema: reflectionInputSchema,
  outputSchema: reflectionOutputSchema,
  annotations: {
    title: "Reflection",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: reflectionOperationSchema.options,
  usesModel: true,
});

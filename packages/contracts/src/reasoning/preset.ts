import { z } from "zod";
import { errorBodySchema } from "../errors.ts";
import { jsonScalarSchema, recordInput } from "../published-form.ts";
import { defineTool } from "../tool-definition.ts";
import { requireFields } from "./require-fields.ts";
import { lazySchema } from "../lazy-schema.ts";

export const presetOperationSchema = lazySchema(() => z.enum(["list", "run"]));

export const presetInputSchema = lazySchema(() =>
  z
    .object({
      operation: presetOperationSchema.describe("list=show available presets, run=execute preset workflow"),
      preset_id: z
        .string()
        .trim()
        .min(1, "preset_id must not be empty")
        .optional()
        .describe("Preset to run (for run); see list"),
      category: z.string().trim().min(1, "category must not be empty").optional().describe("Filter for list"),
      inputs: recordInput(z.unknown(), { keyName: "name", what: "input", publishedValue: jsonScalarSchema })
        .default({})
        .describe("Preset inputs for run, by name; list shows each preset's required_inputs and optional_inputs"),
      session_id: z
        .string()
        .min(1)
        .optional()
        .describe("Session every step continues; omit to let the preset start one"),
    })
    .superRefine(requireFields({ run: ["preset_id"] })),
);

export const presetInputDescriptionSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    description: z.string(),
    required: z.boolean(),
  }),
);

export const presetStepSummarySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    tool: z.string(),
    description: z.string(),
    depends_on: z.array(z.string()),
  }),
);

export const presetSummarySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    category: z.string(),
    required_inputs: z.array(z.string()),
    optional_inputs: z.array(z.string()),
    inputs: z.array(presetInputDescriptionSchema).describe("Every input with what it is for"),
    steps: z
      .array(presetStepSummarySchema)
      .describe("The workflow: steps with no unfinished dependency run concurrently"),
  }),
);

/** One finished step: which tool ran and exactly what it returned. */
export const presetStepResultSchema = lazySchema(() =>
  z.object({
    step_id: z.string(),
    tool: z.string(),
    depends_on: z.array(z.string()),
    result: z.record(z.string(), z.unknown()).describe("The tool's own output"),
  }),
);

/** A step that failed: its tool and the error it failed with. */
export const presetStepFailureSchema = lazySchema(() =>
  z.object({ step_id: z.string(), tool: z.string(), error: errorBodySchema }),
);

const executionCommon = {
  preset_id: z.string(),
  steps_completed: z.number().int(),
  total_steps: z.number().int(),
  step_results: z.array(presetStepResultSchema).describe("Outputs of the completed steps, in the preset's step order"),
};

/**
 * A run either completes (every step ran; final_output is assembled from the
 * steps' results) or fails at a step: then the completed steps' outputs are
 * returned with the failing step and its error, and the steps that never ran.
 */
export const presetExecutionResultSchema = lazySchema(() =>
  z.discriminatedUnion("status", [
    z.object({
      status: z.literal("completed"),
      ...executionCommon,
      final_output: z
        .record(z.string(), z.unknown())
        .describe("The preset's result, assembled from its steps' outputs"),
    }),
    z.object({
      status: z.literal("failed"),
      ...executionCommon,
      failed_step: presetStepFailureSchema.describe("The (first) step that failed and why"),
      also_failed: z
        .array(presetStepFailureSchema)
        .optional()
        .describe("Other steps running at the time that failed too"),
      not_run: z.array(z.string()).describe("Steps never started because the run stopped at the failure"),
    }),
  ]),
);

export const presetOutputSchema = lazySchema(() =>
  z.object({
    presets: z.array(presetSummarySchema).optional().describe("For list operation"),
    categories: z.array(z.string()).optional().describe("Every category on offer (for list)"),
    execution_result: presetExecutionResultSchema.optional().describe("For run operation"),
    session_id: z.string().optional().describe("The session the run's steps wrote to"),
  }),
);

export const presetTool = defineTool({
  name: "reasoning_preset",
  description:
    "Pre-defined multi-step reasoning workflows. Operations: LIST shows available presets (code-review, debug-analysis, architecture-decision, risk-assessment, research-synthesis, ...) with their inputs and steps, optionally filtered by category; RUN executes a preset_id workflow with the given inputs: each step calls another reasoning tool, steps whose dependencies are done run concurrently, earlier results feed later steps, and progress is reported per step. If a step fails, the run returns status 'failed' with the completed steps' outputs, the failing step and its error.",
  inputSchema: presetInputSchema,
  outputSchema: presetOutputSchema,
  annotations: {
    title: "Workflow Presets",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: true,
  },
  operations: presetOperationSchema.options,
  usesModel: true,
});

import { z } from "zod";
import { traceEntrySchema } from "./agent-intent.ts";
import { lazySchema } from "../lazy-schema.ts";

/** `WorkflowIntentRequest` (spec). */
export const workflowIntentRequestSchema = lazySchema(() =>
  z
    .object({
      run_id: z.string().min(1, "run_id must not be empty").max(200).describe("The caller's id for this workflow run"),
      workflow_name: z
        .string()
        .min(1, "workflow_name must not be empty")
        .describe("e.g. chain_of_thought; GET /v1/workflows lists them"),
      current_node: z.string().nullish().describe("The step just answered; omit (or null) to start the workflow"),
      outputs: z
        .record(z.string(), z.unknown())
        .nullish()
        .describe(
          "Every answer saved so far, keyed by each step's save_as (or step id); must include the current node's",
        ),
      params: z.record(z.string(), z.unknown()).nullish().describe("The workflow's inputs, e.g. {problem}"),
      memory_state: z.record(z.string(), z.unknown()).nullish(),
    })
    .meta({ title: "WorkflowIntentRequest" }),
);
export type WorkflowIntentRequest = z.infer<typeof workflowIntentRequestSchema>;

/** `WorkflowIntentResponse` (spec), plus the rendered step. */
export const workflowIntentResponseSchema = lazySchema(() =>
  z
    .object({
      status: z.literal("ok"),
      duration_ms: z.number().int(),
      intent_id: z.string(),
      next_node: z.string().nullable().describe("The step to do next; null when the workflow is complete"),
      action_type: z
        .enum(["submit_thought", "finish"])
        .describe("submit_thought: answer next_node's instruction; finish: the workflow is complete"),
      tool_name: z.string().nullable().describe("Always null: workflow steps are thinking steps"),
      tool_args: z.record(z.string(), z.unknown()),
      reasoning: z.string(),
      finish: z.boolean(),
      trace: z.array(traceEntrySchema),
      workflow: z.string(),
      step_number: z.number().int().nullable(),
      total_steps: z.number().int(),
      instruction: z
        .string()
        .nullable()
        .describe("next_node's instruction with the inputs and earlier answers filled in"),
      expecting: z.string().nullable().describe("What the answer to next_node should be"),
      save_as: z.string().nullable().describe("Send the answer to next_node under outputs.<save_as>"),
      answers: z.record(z.string(), z.string()).optional().describe("When finished: every saved answer"),
    })
    .meta({ title: "WorkflowIntentResponse" }),
);
export type WorkflowIntentResponse = z.infer<typeof workflowIntentResponseSchema>;

/** One guided workflow as `GET /v1/workflows` lists it. */
export const workflowSummarySchema = lazySchema(() =>
  z
    .object({
      name: z.string(),
      version: z.string(),
      title: z.string(),
      description: z.string(),
      inputs: z.array(z.object({ name: z.string(), description: z.string(), required: z.boolean() })),
      steps: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          expecting: z.string(),
          save_as: z.string(),
          completes: z.boolean(),
        }),
      ),
    })
    .meta({ title: "Workflow" }),
);
export type WorkflowSummary = z.infer<typeof workflowSummarySchema>;

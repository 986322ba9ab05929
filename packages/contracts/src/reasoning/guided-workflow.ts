import { z } from "zod";
import { nonEmptyText } from "../coerce.ts";
import { recordInput } from "../published-form.ts";
import { defineTool } from "../tool-definition.ts";
import { lazySchema } from "../lazy-schema.ts";

const workflowAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/** Where a guided workflow run stands: the next step to do, or completion with the whole chain. */
export const workflowProgressSchema = lazySchema(() =>
  z.object({
    state_id: z.string().describe("Pass to submitThought"),
    workflow: z.string(),
    status: z.enum(["in_progress", "complete"]),
    complete: z.boolean().describe("True once the last step is answered (the guided-workflow ticket's result shape)"),
    step: z.string().optional().describe("Id of the step to do next"),
    step_number: z.number().int().optional(),
    total_steps: z.number().int(),
    instruction: z.string().optional().describe("What to think about in this step"),
    expecting: z.string().optional().describe("What your thought for this step should be"),
    agent_instructions: z.string().describe("What to do next, in one message"),
    summary: z
      .object({ steps_completed: z.number().int(), duration_ms: z.number() })
      .optional()
      .describe("When complete"),
    reasoning_chain: z.record(z.string(), z.string()).optional().describe("Every saved answer, when complete"),
  }),
);

export const startChainOfThoughtInputSchema = lazySchema(() =>
  z.object({
    problem: nonEmptyText("problem").describe("The problem to reason through"),
  }),
);

export const startChainOfThoughtTool = defineTool({
  name: "startChainOfThought",
  description:
    "Start a chain of thought reasoning process: decompose the problem, analyse, synthesise. You do the thinking, one step at a time, with your full capacity; the server keeps the structure and state. Returns a state_id and the first step's instruction; answer each step with submitThought.",
  inputSchema: startChainOfThoughtInputSchema,
  outputSchema: workflowProgressSchema,
  annotations: { title: "Start Chain of Thought", ...workflowAnnotations },
  operations: [],
  usesModel: false,
});

export const startWorkflowInputSchema = lazySchema(() =>
  z.object({
    workflow: nonEmptyText("workflow").describe("Workflow name from listWorkflows, e.g. root_cause_analysis"),
    inputs: recordInput(z.string(), { keyName: "name", what: "input" })
      .default({})
      .describe('The workflow\'s inputs by name, e.g. [{ "name": "problem", "value": "..." }]'),
  }),
);

export const startWorkflowTool = defineTool({
  name: "startWorkflow",
  description:
    "Start any guided workflow by name (see listWorkflows: chain_of_thought, root_cause_analysis, decision_making, plan_and_execute) with its inputs. Returns a state_id and the first step's instruction; answer each step with submitThought.",
  inputSchema: startWorkflowInputSchema,
  outputSchema: workflowProgressSchema,
  annotations: { title: "Start Guided Workflow", ...workflowAnnotations },
  operations: [],
  usesModel: false,
});

export const submitThoughtInputSchema = lazySchema(() =>
  z.object({
    state_id: nonEmptyText("state_id").describe("The workflow state ID"),
    thought: nonEmptyText("thought").describe("Your reasoning for this step"),
  }),
);

export const submitThoughtTool = defineTool({
  name: "submitThought",
  description:
    "Submit your thought for the current step of a guided workflow. The thought is saved to the run's state and the workflow advances: the result is the next step's instruction, or, after the last step, the completion summary with the whole reasoning chain.",
  inputSchema: submitThoughtInputSchema,
  outputSchema: workflowProgressSchema,
  annotations: { title: "Submit Thought", ...workflowAnnotations },
  operations: [],
  usesModel: false,
});

export const listWorkflowsOutputSchema = lazySchema(() =>
  z.object({
    workflows: z.array(
      z.object({
        name: z.string(),
        title: z.string(),
        description: z.string(),
        inputs: z.array(z.object({ name: z.string(), description: z.string(), required: z.boolean() })),
        steps: z.array(z.object({ id: z.string(), title: z.string(), expecting: z.string() })),
      }),
    ),
  }),
);

export const listWorkflowsTool = defineTool({
  name: "listWorkflows",
  description:
    "List the guided workflows with their inputs and steps. Start one with startWorkflow (or startChainOfThought).",
  inputSchema: z.object({}),
  outputSchema: listWorkflowsOutputSchema,
  annotations: {
    title: "List Workflows",
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  operations: [],
  usesModel: false,
});

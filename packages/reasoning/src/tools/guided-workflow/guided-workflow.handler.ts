import {
  DeliberateError,
  listWorkflowsTool,
  startChainOfThoughtTool,
  startWorkflowTool,
  submitThoughtTool,
  type ToolOutput,
} from "@deliberate/contracts";
import { nowIso } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { getWorkflow, workflowDefinitions } from "./registry.ts";
import type { WorkflowDefinition } from "./workflow-definition.ts";
import { advanceWorkflow, startWorkflow, type WorkflowStepPrompt } from "./workflow-navigation.ts";

type WorkflowProgress = ToolOutput<typeof submitThoughtTool>;

function stepProgress(stateId: string, definition: WorkflowDefinition, step: WorkflowStepPrompt): WorkflowProgress {
  return {
    state_id: stateId,
    workflow: definition.name,
    status: "in_progress",
    complete: false,
    step: step.stepId,
    step_number: step.stepNumber,
    total_steps: step.totalSteps,
    instruction: step.instruction,
    expecting: step.expecting,
    agent_instructions: [
      `Step ${step.stepNumber} of ${step.totalSteps} (${step.title}):`,
      step.instruction,
      "",
      `Then call submitThought with state_id "${stateId}" and thought: your ${step.expecting}.`,
    ].join("\n"),
  };
}

async function start(
  definition: WorkflowDefinition,
  inputs: Record<string, string>,
  context: ReasoningContext,
  inputField: string,
): Promise<WorkflowProgress> {
  const first = startWorkflow(definition, inputs, { inputs: inputField });
  const stateId = context.ids.next("wf");
  const now = nowIso(context);
  await context.store.workflowRuns.create({
    id: stateId,
    workflow: definition.name,
    status: "in_progress",
    current_step: first.stepId,
    inputs,
    answers: {},
    created_at: now,
    updated_at: now,
    completed_at: null,
  });
  return stepProgress(stateId, definition, first);
}

export const startChainOfThoughtHandler = defineHandler(startChainOfThoughtTool, async (input, context) =>
  start(getWorkflow("chain_of_thought"), { problem: input.problem }, context, "(input)"),
);

export const startWorkflowHandler = defineHandler(startWorkflowTool, async (input, context) =>
  start(getWorkflow(input.workflow, "workflow"), input.inputs, context, "inputs"),
);

/**
 * Saves the thought as the current step's answer and advances the run. The
 * update is conditional on the run still being at that step, so concurrent
 * submissions to one run cannot both advance it, and runs never share state.
 */
export const submitThoughtHandler = defineHandler(submitThoughtTool, async (input, context) => {
  const run = await context.store.workflowRuns.get(input.state_id);
  const definition = getWorkflow(run.workflow);
  if (run.status === "complete" || run.current_step === null) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Workflow run ${run.id} (${run.workflow}) is already complete.`,
      issues: [{ field: "state_id", message: "this run is complete" }],
      hint: "Start a new run with startChainOfThought or startWorkflow.",
    });
  }
  const step = definition.steps.find((candidate) => candidate.id === run.current_step);
  if (!step)
    throw new DeliberateError({ code: "INTERNAL", message: `Run ${run.id} is at unknown step ${run.current_step}` });
  const answers = { ...run.answers, [step.saveAs]: input.thought };
  const transition = advanceWorkflow(definition, { currentStep: step.id, inputs: run.inputs, answers });
  const now = nowIso(context);
  const advanced = await context.store.workflowRuns.advance({
    id: run.id,
    fromStep: step.id,
    toStep: transition.complete ? null : transition.next.stepId,
    answers,
    now,
  });
  if (!advanced) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Workflow run ${run.id} moved on while this thought was being saved.`,
      issues: [{ field: "state_id", message: "another thought was submitted for this step at the same time" }],
      hint: "Nothing was saved from this call; fetch the current step by submitting again only if the other submission was not yours.",
    });
  }
  if (!transition.complete) return stepProgress(run.id, definition, transition.next);
  const durationMs = new Date(now).getTime() - new Date(run.created_at).getTime();
  return {
    state_id: run.id,
    workflow: definition.name,
    status: "complete" as const,
    complete: true,
    total_steps: definition.steps.length,
    summary: { steps_completed: transition.stepsCompleted, duration_ms: durationMs },
    reasoning_chain: transition.answers,
    agent_instructions: [
      `${definition.title} complete.`,
      `Steps completed: ${transition.stepsCompleted}. The whole reasoning chain is saved under state_id "${run.id}" and returned in reasoning_chain.`,
      "You can now give your final answer based on it.",
    ].join("\n"),
  };
});

export const listWorkflowsHandler = defineHandler(listWorkflowsTool, async () => ({
  workflows: workflowDefinitions.map((definition) => ({
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputs: definition.inputs.map((workflowInput) => ({ ...workflowInput })),
    steps: definition.steps.map((step) => ({ id: step.id, title: step.title, expecting: step.expecting })),
  })),
}));

import { DeliberateError } from "@deliberate/base";
import type { IdGenerator } from "@deliberate/engine";
import {
  advanceWorkflow,
  findWorkflowStep,
  getWorkflow,
  startWorkflow,
  type WorkflowDefinition,
  type WorkflowStepPrompt,
} from "@deliberate/reasoning";
import type { z } from "zod";
import type { Telemetry } from "../telemetry.ts";
import type { WorkflowIntentRequest, WorkflowIntentResponse, workflowSummarySchema } from "./workflow-intent.schema.ts";

const fields = { inputs: "params", answers: "outputs", step: "current_node" };

function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : JSON.stringify(value);
}

function textRecord(values: Record<string, unknown> | null | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    const text = asText(value);
    if (text !== undefined) result[key] = text;
  }
  return result;
}

/** Answers keyed by save_as; an answer sent under the step id is accepted too. */
function answersOf(
  definition: WorkflowDefinition,
  outputs: Record<string, unknown> | null | undefined,
): Record<string, string> {
  const given = textRecord(outputs);
  const answers: Record<string, string> = { ...given };
  for (const step of definition.steps) {
    const byId = given[step.id];
    if (answers[step.saveAs] === undefined && byId !== undefined) answers[step.saveAs] = byId;
  }
  return answers;
}

/**
 * The server keeps no run state: every earlier answer travels with each call.
 * Advancing past a step whose earlier steps have no answer in `outputs` would
 * complete (or continue) a run this service never saw, so it is refused,
 * naming each missing answer.
 */
function checkEarlierAnswers(
  definition: WorkflowDefinition,
  current: string,
  answers: Readonly<Record<string, string>>,
): void {
  const index = definition.steps.findIndex((step) => step.id === current);
  if (index <= 0) return; // the first step, or an unknown one (advanceWorkflow names it)
  const missing = definition.steps.slice(0, index).filter((step) => (answers[step.saveAs] ?? "").trim() === "");
  if (missing.length === 0) return;
  const issues = missing.map((step) => ({
    field: `outputs.${step.saveAs}`,
    message: `the answer to earlier step '${step.id}' (${step.expecting}) is missing`,
  }));
  throw new DeliberateError({
    code: "INVALID_INPUT",
    message: `Cannot advance ${definition.name} past '${current}': ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}. The run's earlier answers were not given.`,
    issues,
    hint: `Send every answer of the run so far in outputs (keyed by save_as: ${missing.map((step) => step.saveAs).join(", ")}), or start the run again without current_node.`,
  });
}

/** A workflow as listed by GET /v1/workflows. */
export function summarizeWorkflow(definition: WorkflowDefinition): z.infer<typeof workflowSummarySchema> {
  return {
    name: definition.name,
    version: definition.version,
    title: definition.title,
    description: definition.description,
    inputs: definition.inputs.map((input) => ({ ...input })),
    steps: definition.steps.map((step) => ({
      id: step.id,
      title: step.title,
      expecting: step.expecting,
      save_as: step.saveAs,
      completes: step.completes === true,
    })),
  };
}

/**
 * One workflow transition (stateless: the caller keeps the run's answers):
 * no current node starts the workflow; otherwise the current node's answer
 * and every earlier step's must be in `outputs` and the next step is returned, rendered with the
 * params and every answer so far, or completion.
 */
export function decideWorkflowIntent(
  request: WorkflowIntentRequest,
  context: { ids: IdGenerator; telemetry: Telemetry; requestId?: string | undefined },
): WorkflowIntentResponse {
  const started = performance.now();
  const definition = getWorkflow(request.workflow_name, "workflow_name");
  const inputs = textRecord(request.params);
  const current = request.current_node?.trim() || undefined;
  const intentId = context.ids.next("intent");
  const base = {
    status: "ok" as const,
    intent_id: intentId,
    tool_name: null,
    tool_args: {},
    workflow: definition.name,
    total_steps: definition.steps.length,
  };

  let response: WorkflowIntentResponse;
  if (current === undefined) {
    const first = startWorkflow(definition, inputs, fields);
    response = {
      ...base,
      ...nextStep(first),
      duration_ms: 0,
      reasoning: `Start ${definition.name}: step 1 of ${first.totalSteps} is ${first.stepId}.`,
      trace: [{ step: "start", detail: `${definition.name} v${definition.version}` }],
    };
  } else {
    const answers = answersOf(definition, request.outputs);
    checkEarlierAnswers(definition, current, answers);
    const transition = advanceWorkflow(definition, { currentStep: current, inputs, answers }, fields);
    if (transition.complete) {
      response = {
        ...base,
        duration_ms: 0,
        next_node: null,
        action_type: "finish",
        reasoning: `${definition.name} is complete: ${transition.stepsCompleted} step(s) answered.`,
        finish: true,
        trace: [{ step: "advance", detail: `${current} answered; it completes the workflow` }],
        step_number: null,
        instruction: null,
        expecting: null,
        save_as: null,
        answers: transition.answers,
      };
    } else {
      const step = findWorkflowStep(definition, current);
      response = {
        ...base,
        ...nextStep(transition.next),
        duration_ms: 0,
        reasoning: `${step?.title ?? current} is done; next is ${transition.next.stepId} (${transition.next.stepNumber} of ${transition.next.totalSteps}).`,
        trace: [{ step: "advance", detail: `${current} -> ${transition.next.stepId}` }],
      };
    }
  }
  // Spec fields first, in the spec's order, then the additions.
  const {
    status,
    duration_ms: _unset,
    intent_id,
    next_node,
    action_type,
    tool_name,
    tool_args,
    reasoning,
    finish,
    trace,
    ...additions
  } = response;
  response = {
    status,
    duration_ms: Math.round(performance.now() - started),
    intent_id,
    next_node,
    action_type,
    tool_name,
    tool_args,
    reasoning,
    finish,
    trace,
    ...additions,
  };
  context.telemetry.record({
    event: "workflow.transition",
    request_id: context.requestId,
    intent_id: intentId,
    duration_ms: response.duration_ms,
    data: {
      run_id: request.run_id,
      workflow: definition.name,
      current_node: current ?? null,
      next_node: response.next_node,
      finish: response.finish,
    },
  });
  return response;
}

function nextStep(prompt: WorkflowStepPrompt) {
  return {
    next_node: prompt.stepId,
    action_type: "submit_thought" as const,
    finish: false,
    step_number: prompt.stepNumber,
    instruction: prompt.instruction,
    expecting: prompt.expecting,
    save_as: prompt.saveAs,
  };
}

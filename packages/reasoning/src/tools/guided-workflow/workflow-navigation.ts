import { DeliberateError, type FieldIssue } from "@deliberate/contracts";
import { placeholdersOf, type WorkflowDefinition, type WorkflowStep } from "./workflow-definition.ts";

/** The next thing the agent should do: one step, its instruction rendered. */
export interface WorkflowStepPrompt {
  stepId: string;
  title: string;
  /** 1-based position of the step. */
  stepNumber: number;
  totalSteps: number;
  /** The instruction with every placeholder filled. */
  instruction: string;
  expecting: string;
  /** Where the answer to this step will be saved. */
  saveAs: string;
  /** Whether answering this step completes the workflow. */
  completes: boolean;
}

/** After an answer: the next step, or completion with everything saved. */
export type WorkflowTransition =
  | { complete: false; next: WorkflowStepPrompt }
  | { complete: true; completedStep: string; stepsCompleted: number; answers: Record<string, string> };

/** Names of the request fields the navigation functions report problems under. */
export interface WorkflowFieldNames {
  /** Where the inputs came from (default `inputs`). */
  inputs: string;
  /** Where the saved answers came from (default `answers`). */
  answers: string;
  /** Where the current step id came from (default `step`). */
  step: string;
}

const defaultFields: WorkflowFieldNames = { inputs: "inputs", answers: "answers", step: "step" };

/** The step with id `stepId`, or undefined. */
export function findWorkflowStep(definition: WorkflowDefinition, stepId: string): WorkflowStep | undefined {
  return definition.steps.find((step) => step.id === stepId);
}

/** Fills `{name}` placeholders; returns the names that had no value (left as written). */
export function renderInstruction(
  template: string,
  values: Readonly<Record<string, string>>,
): { text: string; missing: string[] } {
  const missing = placeholdersOf(template).filter((name) => values[name] === undefined);
  const text = template.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (whole, name: string) => values[name] ?? whole);
  return { text, missing };
}

/**
 * Starts a workflow: checks the required inputs and returns the first step.
 * @throws DeliberateError INVALID_INPUT naming each missing input.
 */
export function startWorkflow(
  definition: WorkflowDefinition,
  inputs: Readonly<Record<string, string>>,
  fields: Partial<WorkflowFieldNames> = {},
): WorkflowStepPrompt {
  const names = { ...defaultFields, ...fields };
  const issues: FieldIssue[] = definition.inputs
    .filter((input) => input.required && !isFilled(inputs[input.name]))
    .map((input) => ({
      field: `${names.inputs}.${input.name}`,
      message: `required to start ${definition.name}: ${input.description}`,
    }));
  if (issues.length > 0)
    throw invalid(definition, issues, `Pass ${issues.map((issue) => issue.field).join(", ")} to start the workflow.`);
  return promptFor(definition, 0, { ...inputs }, names);
}

/**
 * Moves past `currentStep` once its answer is saved: returns the next step
 * (rendered with the inputs and every answer so far) or completion.
 * `answers` holds every answer saved so far, keyed by each step's `saveAs`.
 * @throws DeliberateError INVALID_INPUT for an unknown step or a missing answer.
 */
export function advanceWorkflow(
  definition: WorkflowDefinition,
  state: { currentStep: string; inputs: Readonly<Record<string, string>>; answers: Readonly<Record<string, string>> },
  fields: Partial<WorkflowFieldNames> = {},
): WorkflowTransition {
  const names = { ...defaultFields, ...fields };
  const index = definition.steps.findIndex((step) => step.id === state.currentStep);
  if (index < 0) {
    throw invalid(
      definition,
      [{ field: names.step, message: `'${state.currentStep}' is not a step of ${definition.name}` }],
      `Steps: ${definition.steps.map((step) => step.id).join(", ")}.`,
    );
  }
  const current = definition.steps[index] as WorkflowStep;
  if (!isFilled(state.answers[current.saveAs])) {
    throw invalid(
      definition,
      [
        {
          field: `${names.answers}.${current.saveAs}`,
          message: `the answer to step '${current.id}' (${current.expecting}) is missing`,
        },
      ],
      `Send your ${current.expecting} as ${names.answers}.${current.saveAs}.`,
    );
  }
  const saved = savedAnswers(definition, index, state.answers);
  if (current.completes) {
    return { complete: true, completedStep: current.id, stepsCompleted: index + 1, answers: saved };
  }
  return { complete: false, next: promptFor(definition, index + 1, { ...state.inputs, ...saved }, names) };
}

function promptFor(
  definition: WorkflowDefinition,
  index: number,
  values: Record<string, string>,
  names: WorkflowFieldNames,
): WorkflowStepPrompt {
  const step = definition.steps[index] as WorkflowStep;
  const { text, missing } = renderInstruction(step.instruction, values);
  if (missing.length > 0) {
    const inputNames = new Set(definition.inputs.map((input) => input.name));
    const issues = missing.map((name) => ({
      field: `${inputNames.has(name) ? names.inputs : names.answers}.${name}`,
      message: `needed by step '${step.id}'`,
    }));
    throw invalid(
      definition,
      issues,
      `Send every input and every answer saved so far (${issues.map((issue) => issue.field).join(", ")}).`,
    );
  }
  return {
    stepId: step.id,
    title: step.title,
    stepNumber: index + 1,
    totalSteps: definition.steps.length,
    instruction: text,
    expecting: step.expecting,
    saveAs: step.saveAs,
    completes: step.completes === true,
  };
}

function savedAnswers(
  definition: WorkflowDefinition,
  throughIndex: number,
  answers: Readonly<Record<string, string>>,
): Record<string, string> {
  const saved: Record<string, string> = {};
  for (const step of definition.steps.slice(0, throughIndex + 1)) {
    const answer = answers[step.saveAs];
    if (isFilled(answer)) saved[step.saveAs] = answer;
  }
  return saved;
}

function isFilled(value: string | undefined): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

function invalid(definition: WorkflowDefinition, issues: FieldIssue[], hint: string): DeliberateError {
  return new DeliberateError({
    code: "INVALID_INPUT",
    message: `Invalid ${definition.name} workflow step: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
    issues,
    hint,
  });
}

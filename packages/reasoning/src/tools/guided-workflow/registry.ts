import { DeliberateError } from "@deliberate/contracts";
import { chainOfThoughtWorkflow } from "./chain-of-thought.workflow.ts";
import { decisionMakingWorkflow } from "./decision-making.workflow.ts";
import { planAndExecuteWorkflow } from "./plan-and-execute.workflow.ts";
import { rootCauseAnalysisWorkflow } from "./root-cause-analysis.workflow.ts";
import type { WorkflowDefinition } from "./workflow-definition.ts";

/** Every guided workflow, in the order surfaces list them. */
export const workflowDefinitions: readonly WorkflowDefinition[] = [
  chainOfThoughtWorkflow,
  rootCauseAnalysisWorkflow,
  decisionMakingWorkflow,
  planAndExecuteWorkflow,
];

/** The workflow named `name`, or undefined. */
export function findWorkflow(name: string): WorkflowDefinition | undefined {
  return workflowDefinitions.find((workflow) => workflow.name === name);
}

/**
 * The workflow named `name`.
 * @throws DeliberateError NOT_FOUND listing the available workflows; `field` names the request field.
 */
export function getWorkflow(name: string, field = "workflow_name"): WorkflowDefinition {
  const workflow = findWorkflow(name);
  if (!workflow) {
    throw new DeliberateError({
      code: "NOT_FOUND",
      message: `Unknown workflow: ${name}`,
      issues: [{ field, message: `no workflow named '${name}'` }],
      hint: `Available workflows: ${workflowDefinitions.map((definition) => definition.name).join(", ")}.`,
    });
  }
  return workflow;
}

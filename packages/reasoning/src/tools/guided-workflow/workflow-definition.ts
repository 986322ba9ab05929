/**
 * Guided workflows as data: a fixed sequence of steps, each an instruction to
 * the calling agent, what its answer should be, and where the answer is saved.
 * The agent does the thinking (with its full capacity per step); the server
 * keeps the structure. Surfaces (guided-workflow MCP tools, the HTTP API's
 * `/workflow_intent`) read these records and share the navigation functions in
 * `workflow-navigation.ts`; none of them hard-codes a step.
 */

/** A value the workflow needs to start, e.g. `problem`. */
export interface WorkflowInput {
  name: string;
  description: string;
  required: boolean;
}

/** One step: what to ask, what to expect back, where the answer goes. */
export interface WorkflowStep {
  /** Stable id (snake_case); the node name in workflow intents. */
  id: string;
  /** Short human title, e.g. "Decompose". */
  title: string;
  /**
   * What the agent is asked to do. `{name}` placeholders are filled from the
   * workflow's inputs and the answers saved by earlier steps.
   */
  instruction: string;
  /** What the answer should be, phrased to follow "your …", e.g. "decomposition into sub-tasks". */
  expecting: string;
  /** Key under which the answer is saved; later steps refer to it as `{saveAs}`. */
  saveAs: string;
  /** True on the (last) step whose answer completes the workflow. */
  completes?: true;
}

/** A whole workflow. Build with `defineWorkflow`, which checks it. */
export interface WorkflowDefinition {
  /** Stable id (snake_case), e.g. `chain_of_thought`. */
  name: string;
  version: string;
  title: string;
  description: string;
  inputs: readonly WorkflowInput[];
  steps: readonly WorkflowStep[];
}

const placeholderPattern = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;
const identifierPattern = /^[a-z][a-z0-9_]*$/;

/** The `{name}` placeholders of an instruction template, in order of first use. */
export function placeholdersOf(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(placeholderPattern)) {
    const name = match[1] as string;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Checks a workflow and returns it unchanged: snake_case ids, unique step ids
 * and answer keys (distinct from input names), at least one step, exactly one
 * completing step and it is the last, and every placeholder refers to an input
 * or to an answer saved by an earlier step.
 *
 * @throws Error naming the workflow and the problem (a programming error).
 */
export function defineWorkflow(definition: WorkflowDefinition): WorkflowDefinition {
  const problems: string[] = [];
  if (!identifierPattern.test(definition.name)) problems.push(`name '${definition.name}' is not snake_case`);
  if (definition.steps.length === 0) problems.push("it has no steps");
  const inputs = new Set(definition.inputs.map((input) => input.name));
  const known = new Set(inputs);
  const stepIds = new Set<string>();
  definition.steps.forEach((step, index) => {
    if (!identifierPattern.test(step.id)) problems.push(`step id '${step.id}' is not snake_case`);
    if (stepIds.has(step.id)) problems.push(`step id '${step.id}' is used twice`);
    stepIds.add(step.id);
    for (const name of placeholdersOf(step.instruction)) {
      if (!known.has(name))
        problems.push(`step '${step.id}' uses {${name}}, which is neither an input nor saved by an earlier step`);
    }
    if (!identifierPattern.test(step.saveAs))
      problems.push(`step '${step.id}' saves as '${step.saveAs}', which is not snake_case`);
    if (known.has(step.saveAs))
      problems.push(`step '${step.id}' saves as '${step.saveAs}', which is already an input or an earlier answer`);
    known.add(step.saveAs);
    const last = index === definition.steps.length - 1;
    if (step.completes && !last) problems.push(`step '${step.id}' completes the workflow but is not the last step`);
    if (last && !step.completes) problems.push(`the last step '${step.id}' must be marked completes`);
  });
  if (problems.length > 0) throw new Error(`Workflow ${definition.name}: ${problems.join("; ")}`);
  return definition;
}

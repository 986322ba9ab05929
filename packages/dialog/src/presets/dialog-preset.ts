import {
  type AgentConfig,
  agentListSchema,
  type DialogAct,
  type DialogPlan,
  type DialogPresetName,
  defaultDialogPlan,
  dialogPlanProblems,
  toFieldIssues,
} from "@deliberate/contracts";

/** One rubric criterion the reviewers score 0..1; the weights of a rubric sum to 1. */
export interface RubricCriterion {
  /** snake_case; the key of the reviewer's score. */
  name: string;
  weight: number;
  /** What a reviewer judges, shown in the prompts. */
  description: string;
}

/**
 * A preset as data: its agents (in speaking order, so that copying them into
 * start_reasoning_session as custom agents gives the same plan), who speaks when (`turns`: steps in order, the
 * turns of a step concurrently), the reviewers' rubric, and its guidance for
 * each act.
 */
export interface DialogPreset {
  name: DialogPresetName;
  description: string;
  recommended_for: readonly string[];
  agents: readonly AgentConfig[];
  turns: DialogPlan;
  criteria: readonly RubricCriterion[];
  /** Preset-specific guidance added to each act's instructions. */
  instructions: Readonly<Record<DialogAct, string>>;
}

/** Keeps the preset's types; `presetProblems` checks it. */
export function definePreset(preset: DialogPreset): DialogPreset {
  return preset;
}

const criterionNamePattern = /^[a-z][a-z0-9_]*$/;

/** Everything wrong with a preset, as readable sentences (empty when it is sound). */
export function presetProblems(preset: DialogPreset): string[] {
  const problems: string[] = [];
  const agents = agentListSchema.safeParse(preset.agents);
  if (!agents.success)
    for (const issue of toFieldIssues(agents.error))
      problems.push(`${preset.name}: agents.${issue.field}: ${issue.message}`);
  for (const problem of dialogPlanProblems(
    preset.turns,
    preset.agents.map((agent) => agent.name),
  )) {
    problems.push(
      `${preset.name}: turns${problem.path.length > 0 ? `.${problem.path.join(".")}` : ""}: ${problem.message}`,
    );
  }
  // Custom agents get the default plan: the preset's agents, copied as custom agents, must speak as the preset does.
  const copied = defaultDialogPlan(preset.agents.map((agent) => agent.name));
  if (JSON.stringify(copied) !== JSON.stringify(preset.turns)) {
    problems.push(
      `${preset.name}: agents are not in speaking order; copied into start_reasoning_session they would get turns ${JSON.stringify(copied)}`,
    );
  }
  if (preset.criteria.length < 2) problems.push(`${preset.name}: a rubric needs at least two criteria`);
  const names = new Set<string>();
  for (const criterion of preset.criteria) {
    if (!criterionNamePattern.test(criterion.name))
      problems.push(`${preset.name}: criterion '${criterion.name}' must be snake_case`);
    if (names.has(criterion.name)) problems.push(`${preset.name}: criterion '${criterion.name}' is listed twice`);
    names.add(criterion.name);
    if (!(criterion.weight > 0 && criterion.weight <= 1))
      problems.push(
        `${preset.name}: criterion '${criterion.name}' has weight ${criterion.weight}; weights are in (0, 1]`,
      );
  }
  const total = preset.criteria.reduce((sum, criterion) => sum + criterion.weight, 0);
  if (Math.abs(total - 1) > 1e-9) problems.push(`${preset.name}: the criteria weights sum to ${total}, not 1`);
  for (const act of ["produce", "merge", "review"] as const) {
    if (preset.instructions[act].trim() === "") problems.push(`${preset.name}: instructions.${act} is empty`);
  }
  return problems;
}

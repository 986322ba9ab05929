import type { ToolDefinition } from "@deliberate/contracts";
import type { PresetDefinition, PresetStep } from "./preset-definition.ts";
import { collectReferences, parseReference, strayDollarKeys } from "./preset-template.ts";

export interface PresetValidationOptions {
  /** Every tool name a step may name; anything else is a typo. */
  knownTools: ReadonlySet<string>;
  /** Definitions of the tools this engine has: step argument names are checked against their input fields. */
  definitions?: ReadonlyMap<string, ToolDefinition>;
}

/**
 * Tools a preset may never call: presets (they could recurse), submit (not a
 * reasoning step) and auto (it picks its tool at run time, which a declared
 * DAG cannot check, and its nested call would not see the run's store).
 */
const forbiddenTools: ReadonlySet<string> = new Set(["reasoning_preset", "reasoning_submit", "reasoning_auto"]);

const kebabCase = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const stepIdPattern = /^[a-z][a-z0-9_]*$/;

function dependenciesOf(step: PresetStep): readonly string[] {
  return step.depends_on ?? [];
}

/** A cycle through the steps, as ids (first repeated at the end), or undefined when there is none. */
export function findCycle(steps: readonly PresetStep[]): string[] | undefined {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, "visiting" | "done">();
  const trail: string[] = [];
  function visit(id: string): string[] | undefined {
    const seen = state.get(id);
    if (seen === "done") return undefined;
    if (seen === "visiting") return [...trail.slice(trail.indexOf(id)), id];
    state.set(id, "visiting");
    trail.push(id);
    for (const dependency of dependenciesOf(byId.get(id) as PresetStep)) {
      if (!byId.has(dependency)) continue;
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    trail.pop();
    state.set(id, "done");
    return undefined;
  }
  for (const step of steps) {
    const cycle = visit(step.id);
    if (cycle) return cycle.reverse(); // read in execution order: a -> b means b depends on a
  }
  return undefined;
}

/** Every step each step (transitively) depends on; assumes no cycle. */
export function ancestorsOf(steps: readonly PresetStep[]): Map<string, Set<string>> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const memo = new Map<string, Set<string>>();
  function ancestors(id: string): Set<string> {
    const known = memo.get(id);
    if (known) return known;
    const result = new Set<string>();
    for (const dependency of dependenciesOf(byId.get(id) as PresetStep)) {
      if (!byId.has(dependency)) continue;
      result.add(dependency);
      for (const ancestor of ancestors(dependency)) result.add(ancestor);
    }
    memo.set(id, result);
    return result;
  }
  for (const step of steps) ancestors(step.id);
  return memo;
}

function inputFieldsOf(definition: ToolDefinition): string[] | undefined {
  const shape = (definition.inputSchema as unknown as { shape?: unknown }).shape;
  return typeof shape === "object" && shape !== null ? Object.keys(shape) : undefined;
}

/** Everything wrong with one preset, each problem a sentence naming the preset and where. */
export function presetProblems(preset: PresetDefinition, options: PresetValidationOptions): string[] {
  const problems: string[] = [];
  const where = (location: string) => `preset '${preset.id}' ${location}`;
  if (!kebabCase.test(preset.id)) problems.push(`preset '${preset.id}': id must be kebab-case, e.g. code-review`);
  for (const [field, value] of [
    ["name", preset.name],
    ["description", preset.description],
    ["category", preset.category],
  ] as const) {
    if (value.trim() === "") problems.push(where(`${field} must not be empty`));
  }

  const inputNames = new Set<string>();
  for (const input of preset.inputs) {
    if (inputNames.has(input.name)) problems.push(where(`declares input '${input.name}' twice`));
    inputNames.add(input.name);
  }

  if (preset.steps.length === 0) problems.push(where("has no steps"));
  const stepIds = new Set<string>();
  for (const step of preset.steps) {
    if (!stepIdPattern.test(step.id))
      problems.push(where(`step '${step.id}': id must be snake_case (letters, digits, _), starting with a letter`));
    if (stepIds.has(step.id)) problems.push(where(`declares step '${step.id}' twice`));
    stepIds.add(step.id);
  }

  for (const step of preset.steps) {
    if (forbiddenTools.has(step.tool)) {
      problems.push(where(`step '${step.id}' calls ${step.tool}, which a preset may not call`));
    } else if (!options.knownTools.has(step.tool)) {
      problems.push(where(`step '${step.id}' calls unknown tool '${step.tool}'`));
    }
    const dependencies = dependenciesOf(step);
    for (const dependency of dependencies) {
      if (dependency === step.id) problems.push(where(`step '${step.id}' depends on itself`));
      else if (!stepIds.has(dependency))
        problems.push(where(`step '${step.id}' depends on unknown step '${dependency}'`));
    }
    if (new Set(dependencies).size !== dependencies.length)
      problems.push(where(`step '${step.id}' lists a dependency twice`));
    const definition = options.definitions?.get(step.tool);
    const fields = definition ? inputFieldsOf(definition) : undefined;
    if (fields) {
      for (const key of Object.keys(step.arguments)) {
        if (!fields.includes(key))
          problems.push(
            where(`step '${step.id}': ${step.tool} has no input '${key}' (its inputs: ${fields.join(", ")})`),
          );
      }
    }
  }

  if (preset.session_step !== undefined && !stepIds.has(preset.session_step)) {
    problems.push(where(`session_step '${preset.session_step}' is not a step`));
  }

  const cycle = findCycle(preset.steps);
  if (cycle) {
    problems.push(where(`has a dependency cycle: ${cycle.join(" -> ")}`));
    return problems; // references cannot be checked against ancestors of a cyclic graph
  }

  const ancestors = ancestorsOf(preset.steps);
  const checkTemplate = (template: PresetStep["arguments"], location: string, stepId: string | undefined) => {
    for (const stray of strayDollarKeys(template, location))
      problems.push(where(`${stray}: unknown key (did you mean $ref?)`));
    for (const found of collectReferences(template, location)) {
      const parsed = parseReference(found.text);
      if ("error" in parsed) {
        problems.push(where(`${found.location}: ${parsed.error}`));
        continue;
      }
      if (found.pluck !== undefined && found.pluck.trim() === "")
        problems.push(where(`${found.location}: pluck must name a field`));
      if (parsed.kind === "input" && !inputNames.has(parsed.name)) {
        problems.push(where(`${found.location}: refers to undeclared input '${parsed.name}'`));
      }
      if (parsed.kind === "step") {
        if (!stepIds.has(parsed.name))
          problems.push(where(`${found.location}: refers to unknown step '${parsed.name}'`));
        else if (stepId !== undefined && !ancestors.get(stepId)?.has(parsed.name)) {
          problems.push(where(`${found.location}: uses the result of step '${parsed.name}' but does not depend on it`));
        }
      }
      if (
        parsed.kind === "session" &&
        stepId !== undefined &&
        preset.session_step !== undefined &&
        stepId !== preset.session_step
      ) {
        if (!ancestors.get(stepId)?.has(preset.session_step)) {
          problems.push(
            where(`${found.location}: uses session_id but does not depend on session step '${preset.session_step}'`),
          );
        }
      }
    }
  };
  for (const step of preset.steps) checkTemplate(step.arguments, `step '${step.id}' arguments`, step.id);
  checkTemplate(preset.output, "output", undefined);
  return problems;
}

/**
 * Checks every preset (and that ids are unique); throws one Error listing all
 * problems. Engines call this at creation, so a bad preset fails at startup.
 */
export function validatePresets(presets: readonly PresetDefinition[], options: PresetValidationOptions): void {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const preset of presets) {
    if (ids.has(preset.id)) problems.push(`preset '${preset.id}' is defined twice`);
    ids.add(preset.id);
    problems.push(...presetProblems(preset, options));
  }
  if (problems.length > 0) throw new Error(`Invalid presets:\n- ${problems.join("\n- ")}`);
}

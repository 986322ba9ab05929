import {
  DeliberateError,
  presetTool,
  type FieldIssue,
  type ToolDefinition,
  type ToolOutput,
} from "@deliberate/contracts";
import { joinTransaction } from "@deliberate/store";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { builtinPresets } from "./builtin-presets.ts";
import type { PresetDefinition } from "./preset-definition.ts";
import { runPreset } from "./run-preset.ts";
import { validatePresets } from "./validate-presets.ts";

type PresetOutput = ToolOutput<typeof presetTool>;

export interface PresetHandlerOptions {
  /** The definitions of the tools presets may name (the module's own). */
  tools: readonly ToolDefinition[];
  /** The presets to offer (default: the built-in ones). */
  presets?: readonly PresetDefinition[];
}

function summarize(preset: PresetDefinition) {
  return {
    id: preset.id,
    name: preset.name,
    description: preset.description,
    category: preset.category,
    required_inputs: preset.inputs.filter((input) => input.required).map((input) => input.name),
    optional_inputs: preset.inputs.filter((input) => !input.required).map((input) => input.name),
    inputs: preset.inputs.map((input) => ({
      name: input.name,
      description: input.description,
      required: input.required,
    })),
    steps: preset.steps.map((step) => ({
      id: step.id,
      tool: step.tool,
      description: step.description,
      depends_on: [...(step.depends_on ?? [])],
    })),
  };
}

/** The inputs with defaults applied; INVALID_INPUT naming `inputs.<name>` for a missing or unknown one. */
function resolveInputs(preset: PresetDefinition, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const issues: FieldIssue[] = [];
  const declared = new Set(preset.inputs.map((input) => input.name));
  for (const name of Object.keys(given)) {
    if (!declared.has(name))
      issues.push({ field: `inputs.${name}`, message: `preset '${preset.id}' has no input '${name}'` });
  }
  const resolved: Record<string, unknown> = {};
  for (const input of preset.inputs) {
    const value = given[input.name];
    const missing = value === undefined || value === null || (typeof value === "string" && value.trim() === "");
    if (!missing) resolved[input.name] = value;
    else if (input.default !== undefined) resolved[input.name] = input.default;
    else if (input.required)
      issues.push({ field: `inputs.${input.name}`, message: `is required: ${input.description}` });
  }
  if (issues.length > 0) {
    const describe = (required: boolean) =>
      preset.inputs
        .filter((input) => input.required === required)
        .map((input) => input.name)
        .join(", ") || "none";
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Invalid inputs for preset ${preset.id}: ${issues.map((issue) => `${issue.field} ${issue.message}`).join("; ")}`,
      issues,
      hint: `Preset ${preset.id} takes required inputs: ${describe(true)}; optional: ${describe(false)}. Nothing was run.`,
    });
  }
  return resolved;
}

/**
 * Runs the DAG. A host-executed call replays the whole run with the answers
 * recorded so far each round, so a round that suspends must leave nothing
 * behind: its steps then write through one transaction (their own
 * transactions join it as savepoints, one at a time), which the suspension
 * rolls back and the final round commits. Model calls there are recorded
 * answers (never a provider call), so no transaction waits on a model.
 */
function execute(
  context: ReasoningContext,
  preset: PresetDefinition,
  inputs: Record<string, unknown>,
  sessionId: string | undefined,
) {
  if (context.models.provider !== "host") return runPreset(context, preset, inputs, sessionId);
  return context.store.transaction((repositories) =>
    runPreset(context, preset, inputs, sessionId, joinTransaction(repositories)),
  );
}

/**
 * Builds reasoning_preset: every preset is validated against the module's
 * tools when the module is created (unknown tool or dependency, cycle, bad
 * reference -> Error at startup), and only presets whose tools the engine
 * serves are offered.
 */
export function createPresetHandler(options: PresetHandlerOptions) {
  const definitions = new Map(options.tools.map((definition) => [definition.name, definition]));
  const presets = options.presets ?? builtinPresets;
  validatePresets(presets, { knownTools: new Set(definitions.keys()), definitions });
  const byId = new Map(presets.map((preset) => [preset.id, preset]));
  const availableIn = (context: ReasoningContext) =>
    presets.filter((preset) => preset.steps.every((step) => context.tools.has(step.tool)));

  function find(presetId: string, context: ReasoningContext): PresetDefinition {
    const available = availableIn(context);
    const preset = byId.get(presetId);
    const offered = available.map((candidate) => candidate.id).join(", ") || "none";
    if (preset === undefined) {
      throw new DeliberateError({
        code: "NOT_FOUND",
        message: `Unknown preset: ${presetId}`,
        issues: [{ field: "preset_id", message: `no preset '${presetId}'` }],
        hint: `Available presets: ${offered}. Call reasoning_preset with operation 'list' to see their inputs.`,
      });
    }
    if (!available.includes(preset)) {
      const missing = [...new Set(preset.steps.map((step) => step.tool).filter((tool) => !context.tools.has(tool)))];
      throw new DeliberateError({
        code: "NOT_FOUND",
        message: `Preset ${presetId} needs tools this server does not provide: ${missing.join(", ")}`,
        issues: [{ field: "preset_id", message: `preset '${presetId}' is not available here` }],
        hint: `Available presets: ${offered}.`,
      });
    }
    return preset;
  }

  function list(category: string | undefined, context: ReasoningContext): PresetOutput {
    const available = availableIn(context);
    const wanted = category?.toLowerCase();
    return {
      presets: available
        .filter((preset) => wanted === undefined || preset.category.toLowerCase() === wanted)
        .map(summarize),
      categories: [...new Set(available.map((preset) => preset.category))].sort(),
    };
  }

  async function run(
    input: { preset_id: string; inputs: Record<string, unknown>; session_id?: string },
    context: ReasoningContext,
  ): Promise<PresetOutput> {
    const preset = find(input.preset_id, context);
    const inputs = resolveInputs(preset, input.inputs);
    // An unknown session fails here, before any step writes anything.
    if (input.session_id !== undefined) await context.store.sessions.get(input.session_id);
    const { session_id, ...execution } = await execute(context, preset, inputs, input.session_id);
    if (execution.status === "failed") {
      // The partial result is returned, but the invocation is a failure with the step's error.
      const failed = execution.failed_step;
      context.reportFailure({
        code: failed.error.code,
        message: `Step ${failed.step_id} (${failed.tool}) failed: ${failed.error.message}`,
      });
    }
    return { execution_result: execution, ...(session_id !== undefined ? { session_id } : {}) };
  }

  return defineHandler(presetTool, async (input, context) => {
    switch (input.operation) {
      case "list":
        return list(input.category, context);
      case "run":
        return run(
          {
            preset_id: input.preset_id as string,
            inputs: input.inputs,
            ...(input.session_id !== undefined ? { session_id: input.session_id } : {}),
          },
          context,
        );
    }
  });
}

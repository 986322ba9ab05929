import { defineModule } from "@deliberate/engine";
import { reasoningModes } from "./modes.ts";
import { reasoningSessionSections } from "./session-sections.ts";
import { reasoningMigrations } from "./store/migrations/index.ts";
import { createReasoningRepositories, type ReasoningRepositories } from "./store/repositories.ts";
import { createAutoHandler } from "./tools/auto/auto.handler.ts";
import { reasoningHandlers } from "./tools/index.ts";
import type { PresetDefinition } from "./tools/preset/preset-definition.ts";
import { createPresetHandler } from "./tools/preset/preset.handler.ts";

export interface ReasoningModuleOptions {
  /** Preset workflows to offer (default: the built-in ones); validated when the module is created. */
  presets?: readonly PresetDefinition[];
}

/**
 * The built-in reasoning tools as one module: linear, tree, divergent,
 * reflection, checkpoint, auto, graph, timeline, MCTS, detect, decision,
 * evidence, counterfactual, metrics, presets and the guided workflows.
 */
export function createReasoningModule(options: ReasoningModuleOptions = {}) {
  const auto = createAutoHandler();
  const definitions = [...reasoningHandlers, auto].map((handler) => handler.definition);
  const preset = createPresetHandler({ tools: definitions, ...(options.presets ? { presets: options.presets } : {}) });
  return defineModule<ReasoningRepositories>({
    name: "reasoning",
    tools: [...reasoningHandlers, auto, preset],
    modes: reasoningModes,
    migrations: reasoningMigrations,
    repositories: createReasoningRepositories,
    sessionSections: reasoningSessionSections,
  });
}

/** The reasoning module with the built-in presets. */
export const reasoningModule = createReasoningModule();

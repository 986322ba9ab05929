import { defineModule } from "@deliberate/engine";
import { reasoningSessionSections } from "./session-sections.ts";
import { type ReasoningRepositories, reasoningStore } from "./store/contribution.ts";
import { createAutoHandler } from "./tools/auto/auto.handler.ts";
import { reasoningHandlers } from "./tools/index.ts";
import { reasoningPrompts } from "./prompts/reasoning-prompts.ts";
import { builtinPresets } from "./tools/preset/builtin-presets.ts";
import type { PresetDefinition } from "./tools/preset/preset-definition.ts";
import { createPresetHandler } from "./tools/preset/preset.handler.ts";
import { linearModeDeclaration } from "./tools/linear/linear.mode.ts";
import { treeModeDeclaration } from "./tools/tree/tree.mode.ts";
import { divergentModeDeclaration } from "./tools/divergent/divergent.mode.ts";
import { reflectionModeDeclaration } from "./tools/reflection/reflection.mode.ts";
import { checkpointModeDeclaration } from "./tools/checkpoint/checkpoint.mode.ts";
import { autoModeDeclaration } from "./tools/auto/auto.mode.ts";
import { graphModeDeclaration } from "./tools/graph/graph.mode.ts";
import { detectModeDeclaration } from "./tools/detect/detect.mode.ts";
import { decisionModeDeclaration } from "./tools/decision/decision.mode.ts";
import { evidenceModeDeclaration } from "./tools/evidence/evidence.mode.ts";
import { timelineModeDeclaration } from "./tools/timeline/timeline.mode.ts";
import { mctsModeDeclaration } from "./tools/mcts/mcts.mode.ts";
import { counterfactualModeDeclaration } from "./tools/counterfactual/counterfactual.mode.ts";

/** The reasoning modes, each declared with its settings in its tool's folder (design §6); model ids live in provider configuration. */
export const reasoningModes = [
  linearModeDeclaration,
  treeModeDeclaration,
  divergentModeDeclaration,
  reflectionModeDeclaration,
  checkpointModeDeclaration,
  autoModeDeclaration,
  graphModeDeclaration,
  detectModeDeclaration,
  decisionModeDeclaration,
  evidenceModeDeclaration,
  timelineModeDeclaration,
  mctsModeDeclaration,
  counterfactualModeDeclaration,
] as const;

/**
 * The reasoning tools by toolset. core is what most questions need (and what the
 * prompts lead to); analysis holds the larger structured methods; workflows the
 * host-driven step-by-step tools.
 */
const reasoningToolsets = {
  core: [
    "reasoning_linear",
    "reasoning_tree",
    "reasoning_divergent",
    "reasoning_reflection",
    "reasoning_checkpoint",
    "reasoning_auto",
    "reasoning_decision",
    "reasoning_evidence",
    "reasoning_preset",
  ],
  analysis: [
    "reasoning_graph",
    "reasoning_timeline",
    "reasoning_mcts",
    "reasoning_detect",
    "reasoning_counterfactual",
    "reasoning_metrics",
  ],
  workflows: ["startChainOfThought", "startWorkflow", "submitThought", "listWorkflows"],
} as const;

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
    ...reasoningStore,
    sessionSections: reasoningSessionSections,
    prompts: reasoningPrompts(options.presets ?? builtinPresets),
    toolsets: reasoningToolsets,
  });
}

/** The reasoning module with the built-in presets. */
export const reasoningModule = createReasoningModule();

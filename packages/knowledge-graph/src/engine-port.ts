// The one place this module touches the engine. When packages/engine lands,
// these re-exports point there and nothing else changes.
import type { ModeId } from "@deliberate/contracts";
import { defineMode, type ModeDefinition, type ModeSettings } from "@deliberate/core";

export { mapConcurrent, runMode } from "@deliberate/core";
export type { Clock, IdGenerator, ModeDefinition, ModeSettings, ProgressUpdate, ToolContext } from "@deliberate/core";

/** The module's mode ids with their default model settings. */
export const knowledgeGraphModes = {
  knowledge_graph_extract: { temperature: 0.2, maxTokens: 3000 },
  knowledge_graph_resolve: { temperature: 0, maxTokens: 1200 },
  knowledge_graph_induce: { temperature: 0.5, maxTokens: 2500 },
  knowledge_graph_deduce: { temperature: 0.1, maxTokens: 2500 },
  knowledge_graph_abduce: { temperature: 0.6, maxTokens: 3000 },
  knowledge_graph_plan: { temperature: 0.3, maxTokens: 2500 },
  knowledge_graph_answer: { temperature: 0.3, maxTokens: 2000 },
  knowledge_graph_sample: { temperature: 0.8, maxTokens: 2000 },
  knowledge_graph_self_ask: { temperature: 0.3, maxTokens: 2000 },
  knowledge_graph_thoughts: { temperature: 0.7, maxTokens: 2500 },
} as const satisfies Record<string, ModeSettings>;

export type KnowledgeGraphModeId = keyof typeof knowledgeGraphModes;

/** Defines one of this module's modes (open mode ids are the engine's target; the cast bridges until then). */
export function defineKnowledgeGraphMode<Input, Output>(
  definition: Omit<ModeDefinition<Input, Output>, "mode"> & { mode: KnowledgeGraphModeId },
): ModeDefinition<Input, Output> {
  return defineMode({ ...definition, mode: definition.mode as unknown as ModeId });
}

import type { ModeSettings } from "@deliberate/engine";

/** The module's mode ids with their default model settings (the engine layers environment and runtime overrides on top). */
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

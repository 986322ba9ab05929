import { dialogModule } from "@deliberate/dialog";
import type { DeliberateModule } from "@deliberate/engine";
import { createKnowledgeGraphModule, type KnowledgeGraphOptions } from "@deliberate/knowledge-graph";
import { reasoningModule } from "@deliberate/reasoning";
import { agentIntentModule } from "./agent-intent-module.ts";

/**
 * The modules the HTTP API always serves, in order: reasoning, dialog, the
 * agent-intent decision and the knowledge graph (with its options). Plug-in
 * modules (`DELIBERATE_MODULES`, `options.modules`) come after them.
 */
export function builtInModules(knowledgeGraph: Partial<KnowledgeGraphOptions>): DeliberateModule[] {
  return [reasoningModule, dialogModule as DeliberateModule, agentIntentModule as DeliberateModule, createKnowledgeGraphModule(knowledgeGraph) as DeliberateModule];
}

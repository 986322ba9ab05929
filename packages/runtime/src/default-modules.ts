import { dialogModule } from "@deliberate/dialog";
import type { DeliberateModule } from "@deliberate/engine";
import { createKnowledgeGraphModule, type KnowledgeGraphOptions } from "@deliberate/knowledge-graph";
import { reasoningModule } from "@deliberate/reasoning";
import { createSelfImprovementModule, type SelfImprovementOptions } from "@deliberate/self-improvement";

/**
 * The modules every service serves, in order: reasoning, dialog, then `serviceModules` (a service's own,
 * such as the HTTP API's agent-intent decision), the knowledge graph, and self-improvement when its options
 * are given (its loop runs in every service; DELIBERATE_SELF_IMPROVEMENT_MODE=off stops its actions).
 * Plug-in modules (`DELIBERATE_MODULES`) come after them.
 */
export function defaultModules(options: {
  knowledgeGraph: Partial<KnowledgeGraphOptions>;
  selfImprovement?: SelfImprovementOptions;
  serviceModules?: readonly DeliberateModule[];
}): DeliberateModule[] {
  return [
    reasoningModule,
    dialogModule as DeliberateModule,
    ...(options.serviceModules ?? []),
    createKnowledgeGraphModule(options.knowledgeGraph) as DeliberateModule,
    ...(options.selfImprovement !== undefined ? [createSelfImprovementModule(options.selfImprovement) as DeliberateModule] : []),
  ];
}

export { createKnowledgeGraphModule, knowledgeGraphModule } from "./module.ts";
export type { KnowledgeGraphOptions } from "./orchestrator/options.ts";
export { knowledgeGraphEnvironment } from "./orchestrator/options-from-environment.ts";
export { forwardChain, isVariable } from "./algorithms/forward-chaining.ts";
export type { Rule } from "./algorithms/forward-chaining.ts";
export { factKey } from "./algorithms/triples.ts";
export type { Fact } from "./algorithms/triples.ts";

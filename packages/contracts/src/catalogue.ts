import type { z } from "zod";
import { knowledgeGraphTools } from "./knowledge-graph/tools.ts";
import { agentIntentDecideTool } from "./agent-intent/decide-tool.ts";
import { dialogTools } from "./dialog/index.ts";
import { reasoningTools } from "./reasoning/index.ts";
import { submitTool } from "./reasoning/submit.ts";
import type { ToolDefinition } from "./tool-definition.ts";

/**
 * Every tool in contracts, by name, grouped by the module that serves it (plus
 * the engine's own reasoning_submit). A client is typed from this alone.
 */
export const toolCatalogue = {
  ...reasoningTools,
  ...knowledgeGraphTools,
  ...dialogTools,
  agent_intent_decide: agentIntentDecideTool,
  reasoning_submit: submitTool,
} as const;

/** Tool names of the catalogue. */
export type ToolName = keyof typeof toolCatalogue;

/** Each tool's input (as a caller sends it) and output (as the server returns it), by name. */
export type ToolCatalogue = {
  [Name in ToolName]: {
    input: z.input<(typeof toolCatalogue)[Name]["inputSchema"]>;
    output: z.output<(typeof toolCatalogue)[Name]["outputSchema"]>;
  };
};

/** Every tool definition in contracts, in catalogue order. */
export const allToolDefinitions: readonly ToolDefinition[] = Object.values(toolCatalogue) as readonly ToolDefinition[];

import { autoTool } from "./auto.ts";
import { listWorkflowsTool, startChainOfThoughtTool, startWorkflowTool, submitThoughtTool } from "./guided-workflow.ts";
import { submitTool } from "./submit.ts";
import { checkpointTool } from "./checkpoint.ts";
import { counterfactualTool } from "./counterfactual.ts";
import { decisionTool } from "./decision.ts";
import { detectTool } from "./detect.ts";
import { evidenceTool } from "./evidence.ts";
import { divergentTool } from "./divergent.ts";
import { linearTool } from "./linear.ts";
import { metricsTool } from "./metrics.ts";
import { presetTool } from "./preset.ts";
import { reflectionTool } from "./reflection.ts";
import { treeTool } from "./tree.ts";
import { graphTool } from "./graph.ts";
import { mctsTool } from "./mcts.ts";
import { timelineTool } from "./timeline.ts";

/** Every tool definition, in the order surfaces list them. */
export const coreToolDefinitions = [linearTool, treeTool, divergentTool, reflectionTool, checkpointTool, autoTool] as const;

/** The analysis tools: detect, decision, evidence, counterfactual. */
export const analysisToolDefinitions = [detectTool, decisionTool, evidenceTool, counterfactualTool] as const;

/** The infrastructure tools: preset, metrics. */
export const infrastructureToolDefinitions = [presetTool, metricsTool] as const;

/** The stateful exploration tools: graph, timeline, mcts. */
export const statefulToolDefinitions = [graphTool, timelineTool, mctsTool] as const;

/** Every tool definition in contracts (the guided-workflow tools and reasoning_submit included). */
export const allToolDefinitions = [
  ...coreToolDefinitions,
  ...statefulToolDefinitions,
  ...analysisToolDefinitions,
  ...infrastructureToolDefinitions,
  startChainOfThoughtTool,
  startWorkflowTool,
  submitThoughtTool,
  listWorkflowsTool,
  submitTool,
] as const;

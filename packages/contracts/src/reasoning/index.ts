import { autoTool } from "./auto.ts";
import { checkpointTool } from "./checkpoint.ts";
import { counterfactualTool } from "./counterfactual.ts";
import { decisionTool } from "./decision.ts";
import { detectTool } from "./detect.ts";
import { divergentTool } from "./divergent.ts";
import { evidenceTool } from "./evidence.ts";
import { graphTool } from "./graph.ts";
import { listWorkflowsTool, startChainOfThoughtTool, startWorkflowTool, submitThoughtTool } from "./guided-workflow.ts";
import { linearTool } from "./linear.ts";
import { mctsTool } from "./mcts.ts";
import { metricsTool } from "./metrics.ts";
import { presetTool } from "./preset.ts";
import { reflectionTool } from "./reflection.ts";
import { timelineTool } from "./timeline.ts";
import { treeTool } from "./tree.ts";

/** The reasoning module's tools, by name, in the order surfaces list them. */
export const reasoningTools = {
  reasoning_linear: linearTool,
  reasoning_tree: treeTool,
  reasoning_divergent: divergentTool,
  reasoning_reflection: reflectionTool,
  reasoning_checkpoint: checkpointTool,
  reasoning_auto: autoTool,
  reasoning_graph: graphTool,
  reasoning_timeline: timelineTool,
  reasoning_mcts: mctsTool,
  reasoning_detect: detectTool,
  reasoning_decision: decisionTool,
  reasoning_evidence: evidenceTool,
  reasoning_counterfactual: counterfactualTool,
  reasoning_preset: presetTool,
  reasoning_metrics: metricsTool,
  startChainOfThought: startChainOfThoughtTool,
  startWorkflow: startWorkflowTool,
  submitThought: submitThoughtTool,
  listWorkflows: listWorkflowsTool,
} as const;

import type { ToolHandler } from "../tool-handler.ts";
import { checkpointHandler } from "./checkpoint.handler.ts";
import { counterfactualHandler } from "./counterfactual.handler.ts";
import { decisionHandler } from "./decision.handler.ts";
import { detectHandler } from "./detect.handler.ts";
import { evidenceHandler } from "./evidence.handler.ts";
import { divergentHandler } from "./divergent.handler.ts";
import { graphHandler } from "./graph.handler.ts";
import { listWorkflowsHandler, startChainOfThoughtHandler, startWorkflowHandler, submitThoughtHandler } from "./guided-workflow.handler.ts";
import { mctsHandler } from "./mcts.handler.ts";
import { timelineHandler } from "./timeline.handler.ts";
import { linearHandler } from "./linear.handler.ts";
import { metricsHandler } from "./metrics.handler.ts";
import { reflectionHandler } from "./reflection.handler.ts";
import { treeHandler } from "./tree.handler.ts";

/** The core tools' handlers (auto is built by the engine from what is registered). */
export const coreHandlers: readonly ToolHandler[] = [
  linearHandler,
  treeHandler,
  divergentHandler,
  reflectionHandler,
  checkpointHandler,
  graphHandler,
  timelineHandler,
  mctsHandler,
  metricsHandler,
  detectHandler,
  decisionHandler,
  evidenceHandler,
  counterfactualHandler,
  startChainOfThoughtHandler,
  startWorkflowHandler,
  submitThoughtHandler,
  listWorkflowsHandler,
] as unknown as readonly ToolHandler[];

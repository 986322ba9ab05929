import type { ToolDefinition } from "@deliberate/contracts";
import type { ToolHandler } from "@deliberate/engine";
import type { ReasoningRepositories } from "../store/contribution.ts";
import { checkpointHandler } from "./checkpoint/checkpoint.handler.ts";
import { counterfactualHandler } from "./counterfactual/counterfactual.handler.ts";
import { decisionHandler } from "./decision/decision.handler.ts";
import { detectHandler } from "./detect/detect.handler.ts";
import { evidenceHandler } from "./evidence/evidence.handler.ts";
import { divergentHandler } from "./divergent/divergent.handler.ts";
import { graphHandler } from "./graph/graph.handler.ts";
import {
  listWorkflowsHandler,
  startChainOfThoughtHandler,
  startWorkflowHandler,
  submitThoughtHandler,
} from "./guided-workflow/guided-workflow.handler.ts";
import { mctsHandler } from "./mcts/mcts.handler.ts";
import { timelineHandler } from "./timeline/timeline.handler.ts";
import { linearHandler } from "./linear/linear.handler.ts";
import { metricsHandler } from "./metrics/metrics.handler.ts";
import { reflectionHandler } from "./reflection/reflection.handler.ts";
import { treeHandler } from "./tree/tree.handler.ts";

/** The reasoning tools' handlers (auto and preset are built by the module, from these). */
export const reasoningHandlers: readonly ToolHandler<ToolDefinition, ReasoningRepositories>[] = [
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
] as unknown as readonly ToolHandler<ToolDefinition, ReasoningRepositories>[];

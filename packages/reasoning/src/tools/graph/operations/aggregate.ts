import { nowIso, runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphNode } from "../../../store/repositories/graph.repository.ts";
import { graphAggregateMode } from "../graph.mode.ts";
import {
  checkNodeBudget,
  depthExceeded,
  type GraphInput,
  type GraphOutput,
  graphScore,
  limitsOf,
  requireActive,
  toOutputNode,
} from "../graph-support.ts";

/** Merges several active nodes into one aggregation node below the deepest of them, linked from each source. */
export async function aggregateOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  const sources = await context.store.graphs.getNodes(sessionId, input.node_ids as string[], "node_ids");
  sources.forEach((node, index) => requireActive(node, `node_ids.${index}`));
  const depth = Math.max(...sources.map((node) => node.depth)) + 1;
  if (depth > limits.max_depth) throw depthExceeded(depth, limits, "node_ids");
  checkNodeBudget(await context.store.graphs.countActive(sessionId), 1, limits, "config.max_nodes");

  const answer = await runMode(context, graphAggregateMode, {
    problem: input.problem ?? graph.problem,
    thoughts: sources.map((node) => node.content),
  });

  const now = nowIso(context);
  const nodeId = context.ids.next("gn");
  const created = await context.store.transaction(async (repositories) => {
    const [node] = await repositories.graphs.insertNodes(
      [
        {
          id: nodeId,
          session_id: sessionId,
          parent_id: (sources[0] as GraphNode).id,
          kind: "aggregation",
          content: answer.insight,
          depth,
          score: graphScore(answer.criteria),
          criteria: answer.criteria,
          metadata: { sources: sources.map((source) => source.id) },
        },
      ],
      now,
    );
    await repositories.graphs.insertEdges(
      sources.map((source) => ({
        id: context.ids.next("ge"),
        session_id: sessionId,
        from_node_id: source.id,
        to_node_id: nodeId,
        kind: "aggregation" as const,
      })),
      now,
    );
    await repositories.graphs.touchGraph({ sessionId, now });
    return node as GraphNode;
  });
  return {
    session_id: sessionId,
    node_id: created.id,
    nodes: [toOutputNode(created)],
    aggregated_insight: answer.insight,
  };
}

import { nowIso, runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphNode } from "../../../store/repositories/graph.repository.ts";
import { formatLineage, graphRefineMode } from "../graph.mode.ts";
import {
  checkNodeBudget,
  type GraphInput,
  type GraphOutput,
  graphScore,
  limitsOf,
  lineageOf,
  loadNodeMap,
  requireActive,
  toOutputNode,
} from "../graph-support.ts";

/**
 * A refinement is a new, improved version of a node at the same depth, linked
 * by a refinement edge; the original is kept (prune decides its fate).
 */
export async function refineOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  const node = await context.store.graphs.getNode(sessionId, input.node_id as string);
  requireActive(node, "node_id");
  checkNodeBudget(await context.store.graphs.countActive(sessionId), 1, limits, "config.max_nodes");
  const byId = await loadNodeMap(context, sessionId);
  const parent = node.parent_id === null ? undefined : byId.get(node.parent_id);

  const answer = await runMode(context, graphRefineMode, {
    path: formatLineage(input.problem ?? graph.problem, parent === undefined ? [] : lineageOf(parent, byId)),
    content: node.content,
  });

  const now = nowIso(context);
  const nodeId = context.ids.next("gn");
  const created = await context.store.transaction(async (repositories) => {
    const [refined] = await repositories.graphs.insertNodes(
      [
        {
          id: nodeId,
          session_id: sessionId,
          parent_id: node.id,
          kind: "refinement",
          content: answer.refined_content,
          depth: node.depth,
          score: graphScore(answer.criteria),
          criteria: answer.criteria,
          metadata: { critique: answer.critique, refines: node.id },
        },
      ],
      now,
    );
    await repositories.graphs.insertEdges(
      [
        {
          id: context.ids.next("ge"),
          session_id: sessionId,
          from_node_id: node.id,
          to_node_id: nodeId,
          kind: "refinement",
        },
      ],
      now,
    );
    await repositories.graphs.touchGraph({ sessionId, now });
    return refined as GraphNode;
  });
  return { session_id: sessionId, node_id: created.id, nodes: [toOutputNode(created)] };
}

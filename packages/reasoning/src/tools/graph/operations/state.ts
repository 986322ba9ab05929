import { listPage, listWindow } from "@deliberate/contracts";
import type { ReasoningContext } from "../../../define-handler.ts";
import { type GraphInput, type GraphOutput, limitsOf, stateOf, toOutputNode } from "../graph-support.ts";

/** Nodes `state` lists per page by default (shallowest first; `limit`, `offset`); the counts always cover the whole graph. */
export const graphStateNodeLimit = 200;

/** A page of the active nodes (shallowest first), the edges between them, and counts over the whole graph. */
export async function stateOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  const window = listWindow(input, graphStateNodeLimit);
  const nodes = await context.store.graphs.listNodes(sessionId, {
    status: "active",
    orderBy: "depth",
    limit: window.limit,
    offset: window.offset,
  });
  const edges = await context.store.graphs.listEdges(sessionId, { nodeIds: nodes.map((node) => node.id) });
  const counts = await stateOf(context.store, graph, limits);
  return {
    session_id: sessionId,
    node_id: graph.root_node_id,
    nodes: nodes.map(toOutputNode),
    edges: edges.map((edge) => ({ from: edge.from_node_id, to: edge.to_node_id, kind: edge.kind })),
    page: listPage(window, counts.active_nodes),
    state: counts,
  };
}

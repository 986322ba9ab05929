import { pruneGraph } from "@deliberate/algorithms";
import { nowIso } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphEdge, GraphNode } from "../../../store/repositories/graph.repository.ts";
import { type GraphInput, type GraphOutput, limitsOf, stateOf, toOutputNode } from "../graph-support.ts";

/**
 * The structural parents pruning follows: a continuation hangs off its source,
 * an aggregation off all its sources, and a refinement stands in for the node
 * it refines (it shares that node's parents), so pruning a weak original does
 * not take its improved version with it. Nodes arrive in insertion order, so
 * a refined node's parents are known before its refinement's.
 */
export function structuralParents(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): Map<string, string[]> {
  const incoming = new Map<string, GraphEdge[]>();
  for (const edge of edges) {
    const list = incoming.get(edge.to_node_id);
    if (list) list.push(edge);
    else incoming.set(edge.to_node_id, [edge]);
  }
  const parents = new Map<string, string[]>();
  for (const node of nodes) {
    const into = incoming.get(node.id) ?? [];
    const refined = into.find((edge) => edge.kind === "refinement");
    if (refined !== undefined) parents.set(node.id, [...(parents.get(refined.from_node_id) ?? [])]);
    else
      parents.set(
        node.id,
        into.map((edge) => edge.from_node_id),
      );
  }
  return parents;
}

/**
 * Marks as pruned every node scoring strictly below the threshold and every
 * node left without an unpruned parent (graph-prune algorithm); the root and
 * unscored nodes are never pruned for their score. Pruned nodes are kept.
 * No model call.
 */
export async function pruneOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  const threshold = input.threshold ?? limits.prune_threshold;
  const nodes = await context.store.graphs.listNodes(sessionId);
  const edges = await context.store.graphs.listEdges(sessionId);
  const parents = structuralParents(nodes, edges);
  const result = pruneGraph({
    threshold,
    nodes: nodes.map((node) => ({
      id: node.id,
      // Already pruned nodes stay pruned and keep orphaning their subtrees.
      score: node.status === "pruned" ? -1 : node.score,
      parent_ids: parents.get(node.id) ?? [],
    })),
  });
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const newlyPruned = result.removed_ids
    .map((id) => byId.get(id) as GraphNode)
    .filter((node) => node.status === "active");
  const now = nowIso(context);
  return context.store.transaction(async (repositories) => {
    await repositories.graphs.setStatus(
      newlyPruned.map((node) => node.id),
      "pruned",
      now,
    );
    await repositories.graphs.touchGraph({ sessionId, now });
    return {
      session_id: sessionId,
      nodes: newlyPruned.map((node) => toOutputNode({ ...node, status: "pruned" })),
      threshold,
      state: await stateOf(repositories, graph, limits),
    };
  });
}

import type { SeededStore } from "./seed-sessions.ts";

type NewGraphNode = Parameters<SeededStore["graphs"]["insertNodes"]>[0][number];
type NewGraphEdge = Parameters<SeededStore["graphs"]["insertEdges"]>[0][number];

/**
 * Stores a graph-of-thoughts session of `size` nodes straight through the
 * store (the handlers cap a graph far lower): a tree of continuations with
 * four children per node, an aggregation node every 25 nodes merging two
 * earlier ones, scores from a fixed pseudo-random sequence and every 9th node
 * pruned. Returns the session id.
 */
export async function seedLargeGraph(
  store: SeededStore,
  options: { sessionId: string; size: number; now?: string },
): Promise<string> {
  const now = options.now ?? "2026-11-22T12:00:00.000Z";
  const { sessionId, size } = options;
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const nodes: NewGraphNode[] = [];
  const edges: NewGraphEdge[] = [];
  const depth = new Map<string, number>();
  for (let index = 0; index < size; index++) {
    const id = `lgn_${String(index).padStart(5, "0")}`;
    if (index === 0) {
      nodes.push({
        id,
        session_id: sessionId,
        parent_id: null,
        kind: "root",
        content: "How do we halve the cost of the data platform?",
        depth: 0,
      });
      depth.set(id, 0);
      continue;
    }
    const aggregation = index % 25 === 0;
    const parent = nodes[Math.floor((index - 1) / 4)]!;
    const score = Math.round(random() * 1000) / 1000;
    if (aggregation) {
      const first = nodes[index - 3]!;
      const second = nodes[index - 11]!;
      const nodeDepth = Math.max(depth.get(first.id)!, depth.get(second.id)!) + 1;
      nodes.push({
        id,
        session_id: sessionId,
        parent_id: first.id,
        kind: "aggregation",
        content: `Merged insight ${index}: combine ${first.id} and ${second.id}`,
        depth: nodeDepth,
        score,
        criteria: { relevance: score, validity: score, depth: score, novelty: score },
      });
      depth.set(id, nodeDepth);
      edges.push({
        id: `lge_${index}_a`,
        session_id: sessionId,
        from_node_id: first.id,
        to_node_id: id,
        kind: "aggregation",
      });
      edges.push({
        id: `lge_${index}_b`,
        session_id: sessionId,
        from_node_id: second.id,
        to_node_id: id,
        kind: "aggregation",
      });
    } else {
      const nodeDepth = depth.get(parent.id)! + 1;
      nodes.push({
        id,
        session_id: sessionId,
        parent_id: parent.id,
        kind: "continuation",
        content: `Thought ${index}: a step from ${parent.id} toward cheaper storage tiers`,
        depth: nodeDepth,
        score,
        criteria: { relevance: score, validity: score, depth: score, novelty: score },
      });
      depth.set(id, nodeDepth);
      edges.push({
        id: `lge_${index}`,
        session_id: sessionId,
        from_node_id: parent.id,
        to_node_id: id,
        kind: "continuation",
      });
    }
  }
  await store.transaction(async (repositories) => {
    await repositories.sessions.create({ id: sessionId, mode: "graph", now });
    await repositories.graphs.createGraph({
      session_id: sessionId,
      root_node_id: nodes[0]!.id,
      problem: "Cloud bill doubled in a year",
      max_nodes: size,
      max_depth: 20,
      prune_threshold: 0.1,
      now,
    });
    await repositories.graphs.insertNodes(nodes, now);
    await repositories.graphs.insertEdges(edges, now);
    await repositories.graphs.setStatus(
      nodes.filter((_, index) => index > 0 && index % 9 === 0).map((node) => node.id),
      "pruned",
      now,
    );
  });
  return sessionId;
}

import { mapConcurrent, nowIso, runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphNode } from "../../../store/repositories/graph.repository.ts";
import { continuationDirections, formatLineage, graphContinuationMode } from "../graph.mode.ts";
import {
  checkNodeBudget,
  conflict,
  depthExceeded,
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
 * k continuations of one node (or of every active, non-terminal leaf below
 * max_depth), asked concurrently under different directions. Limits are
 * checked before any model call; all new nodes and their continuation edges
 * land in one transaction.
 */
export async function generateOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  let targets: GraphNode[];
  if (input.node_id !== undefined) {
    const node = await context.store.graphs.getNode(sessionId, input.node_id);
    requireActive(node, "node_id");
    if (node.depth + 1 > limits.max_depth) throw depthExceeded(node.depth + 1, limits, "node_id");
    targets = [node];
  } else {
    const leaves = (await context.store.graphs.activeLeaves(sessionId)).filter((leaf) => !leaf.is_terminal);
    targets = leaves.filter((leaf) => leaf.depth + 1 <= limits.max_depth);
    if (targets.length === 0) {
      if (leaves.length > 0) throw depthExceeded((leaves[0] as GraphNode).depth + 1, limits, "config.max_depth");
      throw conflict(
        "node_id",
        "the graph has no active, non-terminal leaf to expand",
        "Pass a node_id to expand a specific node.",
      );
    }
  }
  const active = await context.store.graphs.countActive(sessionId);
  checkNodeBudget(active, targets.length * input.k, limits, input.node_id !== undefined ? "k" : "config.max_nodes");

  const byId = await loadNodeMap(context, sessionId);
  const problem = input.problem ?? graph.problem;
  const jobs = targets.flatMap((target) => {
    const path = formatLineage(problem, lineageOf(target, byId));
    return Array.from({ length: input.k }, (_, index) => ({ target, path, index }));
  });
  let done = 0;
  const answers = await mapConcurrent(jobs, context.concurrency, async (job) => {
    const answer = await runMode(context, graphContinuationMode, {
      path: job.path,
      direction: continuationDirections[job.index % continuationDirections.length] as string,
      index: job.index,
      count: input.k,
    });
    done += 1;
    context.progress({ progress: done, total: jobs.length, message: `continuation ${done} of ${jobs.length}` });
    return answer;
  });

  const now = nowIso(context);
  const newNodes = jobs.map((job, index) => {
    const answer = answers[index] as (typeof answers)[number];
    return {
      id: context.ids.next("gn"),
      session_id: sessionId,
      parent_id: job.target.id,
      kind: "continuation" as const,
      content: answer.content,
      depth: job.target.depth + 1,
      score: graphScore(answer.criteria),
      criteria: answer.criteria,
      metadata: { direction: continuationDirections[job.index % continuationDirections.length] },
    };
  });
  const edges = newNodes.map((node) => ({
    id: context.ids.next("ge"),
    session_id: sessionId,
    from_node_id: node.parent_id,
    to_node_id: node.id,
    kind: "continuation" as const,
  }));
  const inserted = await context.store.transaction(async (repositories) => {
    const nodes = await repositories.graphs.insertNodes(newNodes, now);
    await repositories.graphs.insertEdges(edges, now);
    await repositories.graphs.touchGraph({ sessionId, now });
    await repositories.sessions.touch({ id: sessionId, now });
    return nodes;
  });
  return {
    session_id: sessionId,
    ...(inserted.length === 1 ? { node_id: (inserted[0] as GraphNode).id } : {}),
    nodes: inserted.map(toOutputNode),
  };
}

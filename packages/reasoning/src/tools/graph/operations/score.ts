import { mapConcurrent, nowIso, runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphNode } from "../../../store/repositories/graph.repository.ts";
import { formatLineage, graphScoreMode } from "../graph.mode.ts";
import {
  type GraphInput,
  type GraphOutput,
  graphScore,
  lineageOf,
  loadNodeMap,
  toOutputNode,
} from "../graph-support.ts";

/** Scores one node (`node_id`) or several (`node_ids`) concurrently; the score is computed from the model's criteria. */
export async function scoreOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const nodes =
    input.node_ids !== undefined && input.node_ids.length > 0
      ? await context.store.graphs.getNodes(sessionId, input.node_ids, "node_ids")
      : [await context.store.graphs.getNode(sessionId, input.node_id as string)];
  const byId = await loadNodeMap(context, sessionId);
  const problem = input.problem ?? graph.problem;
  let done = 0;
  const answers = await mapConcurrent(nodes, context.concurrency, async (node) => {
    const parent = node.parent_id === null ? undefined : byId.get(node.parent_id);
    const answer = await runMode(context, graphScoreMode, {
      path: formatLineage(problem, parent === undefined ? [] : lineageOf(parent, byId)),
      content: node.content,
    });
    done += 1;
    context.progress({ progress: done, total: nodes.length, message: `scored ${done} of ${nodes.length}` });
    return answer;
  });
  const updates = nodes.map((node, index) => {
    const answer = answers[index] as (typeof answers)[number];
    return { id: node.id, score: graphScore(answer.criteria), criteria: answer.criteria };
  });
  const now = nowIso(context);
  await context.store.transaction(async (repositories) => {
    await repositories.graphs.setScores(updates, now);
    await repositories.graphs.touchGraph({ sessionId, now });
  });
  const scored = nodes.map((node, index) => ({ ...node, score: (updates[index] as (typeof updates)[number]).score }));
  return {
    session_id: sessionId,
    ...(scored.length === 1 ? { node_id: (scored[0] as GraphNode).id } : {}),
    nodes: scored.map(toOutputNode),
  };
}

import { nowIso, runMode } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphNode } from "../../../store/repositories/graph.repository.ts";
import { formatLineage, graphFinalizeMode } from "../graph.mode.ts";
import {
  type GraphInput,
  type GraphOutput,
  lineageOf,
  loadNodeMap,
  requireActive,
  toOutputNode,
} from "../graph-support.ts";

/** Most active leaves finalize reads when the caller names none (best scored first). */
export const graphFinalizeLeafLimit = 20;

/**
 * Draws conclusions from the terminal nodes (named, or the best active leaves), marks them terminal
 * and appends the conclusions to the session's thoughts, so later calls build on them.
 */
export async function finalizeOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  let terminals: GraphNode[];
  if (input.terminal_node_ids !== undefined) {
    terminals = await context.store.graphs.getNodes(sessionId, input.terminal_node_ids, "terminal_node_ids");
    terminals.forEach((node, index) => requireActive(node, `terminal_node_ids.${index}`));
  } else {
    const leaves = await context.store.graphs.activeLeaves(sessionId);
    // Best scored first (unscored last), ties by insertion order; bounded so the prompt stays readable.
    terminals = [...leaves]
      .sort((a, b) => (b.score ?? -1) - (a.score ?? -1) || a.position - b.position)
      .slice(0, graphFinalizeLeafLimit);
  }
  const byId = await loadNodeMap(context, sessionId);
  const answer = await runMode(context, graphFinalizeMode, {
    problem: input.problem ?? graph.problem,
    paths: terminals.map((node) => formatLineage(null, lineageOf(node, byId), 600)),
  });
  const now = nowIso(context);
  const scores = terminals.flatMap((node) => (node.score === null ? [] : [node.score]));
  const thoughtId = context.ids.next("th");
  await context.store.transaction(async (repositories) => {
    await repositories.graphs.setTerminal(
      terminals.map((node) => node.id),
      now,
    );
    await repositories.graphs.touchGraph({ sessionId, now });
    // The conclusions join the session's history, so later calls in the session build on them.
    const session = await repositories.sessions.get(sessionId);
    const previous = await repositories.thoughts.recent(sessionId, 1);
    await repositories.thoughts.append({
      id: thoughtId,
      session_id: sessionId,
      branch_id: session.active_branch_id,
      parent_id: previous.at(-1)?.id ?? null,
      mode: "graph",
      content: answer.conclusions.map((conclusion, index) => `${index + 1}. ${conclusion}`).join("\n"),
      // Mean score of the scored terminal nodes; null when none was scored.
      confidence: scores.length === 0 ? null : scores.reduce((sum, value) => sum + value, 0) / scores.length,
      metadata: { terminal_node_ids: terminals.map((node) => node.id) },
      created_at: now,
    });
    await repositories.sessions.touch({ id: sessionId, now });
  });
  return {
    session_id: sessionId,
    nodes: terminals.map((node) => toOutputNode({ ...node, is_terminal: true })),
    conclusions: answer.conclusions,
  };
}

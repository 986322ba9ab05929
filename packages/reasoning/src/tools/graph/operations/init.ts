import { graphConfigDefaults } from "@deliberate/contracts";
import { nowIso } from "@deliberate/engine";
import type { ReasoningContext } from "../../../define-handler.ts";
import type { GraphNode } from "../../../store/repositories/graph.repository.ts";
import {
  conflict,
  type GraphInput,
  type GraphLimits,
  type GraphOutput,
  stateOf,
  toOutputNode,
} from "../graph-support.ts";

/** Starts a graph: a root node holding `content`, in a new session or one without a graph yet. */
export async function initOperation(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const existing = input.session_id === undefined ? undefined : await context.store.sessions.get(input.session_id);
  if (existing !== undefined) {
    const graph = await context.store.graphs.findGraph(existing.id);
    if (graph !== undefined) {
      throw conflict(
        "session_id",
        `session '${existing.id}' already has a graph (root ${graph.root_node_id})`,
        "Continue it with generate/score/aggregate/refine/prune/finalize/state, or omit session_id to start a new graph in a new session.",
      );
    }
  }
  const sessionId = existing?.id ?? context.ids.next("ses");
  const rootId = context.ids.next("gn");
  const now = nowIso(context);
  const limits: GraphLimits = {
    max_nodes: input.config?.max_nodes ?? graphConfigDefaults.max_nodes,
    max_depth: input.config?.max_depth ?? graphConfigDefaults.max_depth,
    prune_threshold: input.config?.prune_threshold ?? graphConfigDefaults.prune_threshold,
  };
  return context.store.transaction(async (repositories) => {
    if (existing === undefined) await repositories.sessions.create({ id: sessionId, mode: "graph", now });
    else await repositories.sessions.touch({ id: sessionId, now });
    const [root] = await repositories.graphs.insertNodes(
      [
        {
          id: rootId,
          session_id: sessionId,
          parent_id: null,
          kind: "root",
          content: input.content as string,
          depth: 0,
        },
      ],
      now,
    );
    const graph = await repositories.graphs.createGraph({
      session_id: sessionId,
      root_node_id: rootId,
      problem: input.problem ?? null,
      ...limits,
      now,
    });
    return {
      session_id: sessionId,
      node_id: rootId,
      nodes: [toOutputNode(root as GraphNode)],
      state: await stateOf(repositories, graph, limits),
    };
  });
}

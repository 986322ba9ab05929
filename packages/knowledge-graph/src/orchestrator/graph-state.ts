import type { ExecuteTaskRequest } from "@deliberate/contracts";
import { functionalPredicateSet } from "../algorithms/contradictions.ts";
import { normalizePredicate } from "../algorithms/names.ts";
import { WorkingGraph } from "../graph/working-graph.ts";
import type { KnowledgeGraphRepository } from "../store/repositories/knowledge-graph.repository.ts";

/**
 * A session's graph for one call, with what it keeps for reasoning: its
 * functional predicates (plus those this request declares) and the closure
 * record incremental deduction starts from. A new session starts empty.
 */
export async function loadWorkingGraph(
  repository: KnowledgeGraphRepository,
  sessionId: string | null,
  request: ExecuteTaskRequest,
): Promise<WorkingGraph> {
  const stored = sessionId === null ? { entities: [], relations: [] } : await repository.loadGraph(sessionId);
  const state =
    sessionId === null ? { functionalPredicates: [], closure: null } : await repository.loadReasoningState(sessionId);
  const graph = WorkingGraph.fromStored(stored.entities, stored.relations, state);
  graph.declareFunctional(functionalPredicateSet(request.contextData?.functionalPredicates ?? [], normalizePredicate));
  return graph;
}

/** Writes the session's functional predicates and closure record (inside the call's transaction). */
export async function saveGraphState(
  repository: KnowledgeGraphRepository,
  sessionId: string,
  graph: WorkingGraph,
): Promise<void> {
  await repository.saveReasoningState(sessionId, {
    functionalPredicates: [...graph.functionalPredicates()].sort(),
    closure: graph.closureRecord(),
  });
}

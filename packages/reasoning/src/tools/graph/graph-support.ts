import { DeliberateError, type graphTool, type ToolInput, type ToolOutput } from "@deliberate/contracts";
import type { ReasoningContext } from "../../define-handler.ts";
import type { ReasoningStoreRepositories as Repositories } from "../../store/contribution.ts";
import type { Graph, GraphNode } from "../../store/repositories/graph.repository.ts";
import type { GraphCriteria } from "./graph.mode.ts";

/** reasoning_graph's input, as every operation receives it. */
export type GraphInput = ToolInput<typeof graphTool>;
/** reasoning_graph's output. */
export type GraphOutput = ToolOutput<typeof graphTool>;

/** The limits one call works under. */
export interface GraphLimits {
  max_nodes: number;
  max_depth: number;
  prune_threshold: number;
}

/**
 * A node's score: the plain mean of its four criteria (relevance, validity,
 * depth, novelty), each a model judgement in [0, 1]. Computed here, never by
 * the model, so every score is reproducible from the stored criteria.
 */
export function graphScore(criteria: GraphCriteria): number {
  return (criteria.relevance + criteria.validity + criteria.depth + criteria.novelty) / 4;
}

/** A stored node as the tool returns it. */
export function toOutputNode(node: GraphNode) {
  return {
    id: node.id,
    content: node.content,
    score: node.score,
    depth: node.depth,
    parent_id: node.parent_id,
    kind: node.kind,
    status: node.status,
    is_terminal: node.is_terminal,
  };
}

/** The limits in force: this call's `config`, else the graph's own. */
export function limitsOf(graph: Graph, config: GraphInput["config"]): GraphLimits {
  return {
    max_nodes: config?.max_nodes ?? graph.max_nodes,
    max_depth: config?.max_depth ?? graph.max_depth,
    prune_threshold: config?.prune_threshold ?? graph.prune_threshold,
  };
}

/** CONFLICT naming the field, with a hint. */
export function conflict(field: string, message: string, hint: string): DeliberateError {
  return new DeliberateError({ code: "CONFLICT", message, issues: [{ field, message }], hint });
}

/** CONFLICT when the node was pruned (pruned nodes cannot be extended). */
export function requireActive(node: GraphNode, field: string): void {
  if (node.status === "pruned") {
    throw conflict(
      field,
      `node '${node.id}' was pruned; pruned nodes are kept for the record but cannot be extended`,
      "Pick an active node (reasoning_graph 'state' lists them).",
    );
  }
}

/** Refuses work that would take the active node count past max_nodes, before any model call. */
export function checkNodeBudget(active: number, adding: number, limits: GraphLimits, field: string): void {
  if (active + adding <= limits.max_nodes) return;
  throw new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `This would add ${adding} node(s) to a graph with ${active} active nodes, past max_nodes ${limits.max_nodes}.`,
    issues: [{ field, message: `${active} active + ${adding} new > max_nodes ${limits.max_nodes}` }],
    hint: "Prune weak nodes (operation 'prune'), ask for fewer (lower k or name one node_id), or raise config.max_nodes. Nothing was written.",
  });
}

/** LIMIT_EXCEEDED for a node that would sit past max_depth; nothing is written. */
export function depthExceeded(depth: number, limits: GraphLimits, field: string): DeliberateError {
  return new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `A new node here would sit at depth ${depth}, past max_depth ${limits.max_depth}.`,
    issues: [{ field, message: `depth ${depth} > max_depth ${limits.max_depth}` }],
    hint: "Expand a shallower node, aggregate or finalize instead, or raise config.max_depth. Nothing was written.",
  });
}

/** Contents from the root down to `node` (following parent_id), for prompts. */
export function lineageOf(node: GraphNode, byId: ReadonlyMap<string, GraphNode>): string[] {
  const contents: string[] = [];
  let current: GraphNode | undefined = node;
  const seen = new Set<string>();
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    contents.push(current.content);
    current = current.parent_id === null ? undefined : byId.get(current.parent_id);
  }
  return contents.reverse();
}

/** Every node of the session's graph, by id. */
export async function loadNodeMap(context: ReasoningContext, sessionId: string): Promise<Map<string, GraphNode>> {
  const nodes = await context.store.graphs.listNodes(sessionId);
  return new Map(nodes.map((node) => [node.id, node]));
}

/** The graph's counts, root and limits (the `state` part of a result). */
export async function stateOf(repositories: Pick<Repositories, "graphs">, graph: Graph, limits: GraphLimits) {
  const stats = await repositories.graphs.stats(graph.session_id);
  return { ...stats, root_node_id: graph.root_node_id, limits };
}

import { DeliberateError, graphConfigDefaults, graphTool, listPage, listWindow, type ToolInput, type ToolOutput } from "@deliberate/contracts";
import type { Graph, GraphEdge, GraphNode } from "../../store/repositories/graph.repository.ts";
import type { ReasoningStoreRepositories as Repositories } from "../../store/repositories.ts";
import { pruneGraph } from "@deliberate/algorithms";
import { mapConcurrent, nowIso, runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import {
  continuationDirections,
  formatLineage,
  type GraphCriteria,
  graphAggregateMode,
  graphContinuationMode,
  graphFinalizeMode,
  graphRefineMode,
  graphScoreMode,
} from "./graph.mode.ts";

type GraphInput = ToolInput<typeof graphTool>;
type GraphOutput = ToolOutput<typeof graphTool>;

/** The limits one call works under. */
export interface GraphLimits {
  max_nodes: number;
  max_depth: number;
  prune_threshold: number;
}

/** Nodes `state` lists per page by default (shallowest first; `limit`, `offset`); the counts always cover the whole graph. */
export const graphStateNodeLimit = 200;
/** Most active leaves finalize reads when the caller names none (best scored first). */
export const graphFinalizeLeafLimit = 20;

/**
 * A node's score: the plain mean of its four criteria (relevance, validity,
 * depth, novelty), each a model judgement in [0, 1]. Computed here, never by
 * the model, so every score is reproducible from the stored criteria.
 */
export function graphScore(criteria: GraphCriteria): number {
  return (criteria.relevance + criteria.validity + criteria.depth + criteria.novelty) / 4;
}

function toOutputNode(node: GraphNode) {
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

function limitsOf(graph: Graph, config: GraphInput["config"]): GraphLimits {
  return {
    max_nodes: config?.max_nodes ?? graph.max_nodes,
    max_depth: config?.max_depth ?? graph.max_depth,
    prune_threshold: config?.prune_threshold ?? graph.prune_threshold,
  };
}

function conflict(field: string, message: string, hint: string): DeliberateError {
  return new DeliberateError({ code: "CONFLICT", message, issues: [{ field, message }], hint });
}

function requireActive(node: GraphNode, field: string): void {
  if (node.status === "pruned") {
    throw conflict(field, `node '${node.id}' was pruned; pruned nodes are kept for the record but cannot be extended`, "Pick an active node (reasoning_graph 'state' lists them).");
  }
}

/** Refuses work that would take the active node count past max_nodes, before any model call. */
function checkNodeBudget(active: number, adding: number, limits: GraphLimits, field: string): void {
  if (active + adding <= limits.max_nodes) return;
  throw new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `This would add ${adding} node(s) to a graph with ${active} active nodes, past max_nodes ${limits.max_nodes}.`,
    issues: [{ field, message: `${active} active + ${adding} new > max_nodes ${limits.max_nodes}` }],
    hint: "Prune weak nodes (operation 'prune'), ask for fewer (lower k or name one node_id), or raise config.max_nodes. Nothing was written.",
  });
}

function depthExceeded(depth: number, limits: GraphLimits, field: string): DeliberateError {
  return new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `A new node here would sit at depth ${depth}, past max_depth ${limits.max_depth}.`,
    issues: [{ field, message: `depth ${depth} > max_depth ${limits.max_depth}` }],
    hint: "Expand a shallower node, aggregate or finalize instead, or raise config.max_depth. Nothing was written.",
  });
}

/** Contents from the root down to `node` (following parent_id), for prompts. */
function lineageOf(node: GraphNode, byId: ReadonlyMap<string, GraphNode>): string[] {
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

async function loadNodeMap(context: ReasoningContext, sessionId: string): Promise<Map<string, GraphNode>> {
  const nodes = await context.store.graphs.listNodes(sessionId);
  return new Map(nodes.map((node) => [node.id, node]));
}

async function stateOf(repositories: Pick<Repositories, "graphs">, graph: Graph, limits: GraphLimits) {
  const stats = await repositories.graphs.stats(graph.session_id);
  return { ...stats, root_node_id: graph.root_node_id, limits };
}

async function init(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
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
      [{ id: rootId, session_id: sessionId, parent_id: null, kind: "root", content: input.content as string, depth: 0 }],
      now,
    );
    const graph = await repositories.graphs.createGraph({ session_id: sessionId, root_node_id: rootId, problem: input.problem ?? null, ...limits, now });
    return { session_id: sessionId, node_id: rootId, nodes: [toOutputNode(root as GraphNode)], state: await stateOf(repositories, graph, limits) };
  });
}

/**
 * k continuations of one node (or of every active, non-terminal leaf below
 * max_depth), asked concurrently under different directions. Limits are
 * checked before any model call; all new nodes and their continuation edges
 * land in one transaction.
 */
async function generate(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
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
      throw conflict("node_id", "the graph has no active, non-terminal leaf to expand", "Pass a node_id to expand a specific node.");
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
  const edges = newNodes.map((node) => ({ id: context.ids.next("ge"), session_id: sessionId, from_node_id: node.parent_id, to_node_id: node.id, kind: "continuation" as const }));
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

async function score(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
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
  return { session_id: sessionId, ...(scored.length === 1 ? { node_id: (scored[0] as GraphNode).id } : {}), nodes: scored.map(toOutputNode) };
}

async function aggregate(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  const sources = await context.store.graphs.getNodes(sessionId, input.node_ids as string[], "node_ids");
  sources.forEach((node, index) => requireActive(node, `node_ids.${index}`));
  const depth = Math.max(...sources.map((node) => node.depth)) + 1;
  if (depth > limits.max_depth) throw depthExceeded(depth, limits, "node_ids");
  checkNodeBudget(await context.store.graphs.countActive(sessionId), 1, limits, "config.max_nodes");

  const answer = await runMode(context, graphAggregateMode, { problem: input.problem ?? graph.problem, thoughts: sources.map((node) => node.content) });

  const now = nowIso(context);
  const nodeId = context.ids.next("gn");
  const created = await context.store.transaction(async (repositories) => {
    const [node] = await repositories.graphs.insertNodes(
      [
        {
          id: nodeId,
          session_id: sessionId,
          parent_id: (sources[0] as GraphNode).id,
          kind: "aggregation",
          content: answer.insight,
          depth,
          score: graphScore(answer.criteria),
          criteria: answer.criteria,
          metadata: { sources: sources.map((source) => source.id) },
        },
      ],
      now,
    );
    await repositories.graphs.insertEdges(
      sources.map((source) => ({ id: context.ids.next("ge"), session_id: sessionId, from_node_id: source.id, to_node_id: nodeId, kind: "aggregation" as const })),
      now,
    );
    await repositories.graphs.touchGraph({ sessionId, now });
    return node as GraphNode;
  });
  return { session_id: sessionId, node_id: created.id, nodes: [toOutputNode(created)], aggregated_insight: answer.insight };
}

/**
 * A refinement is a new, improved version of a node at the same depth, linked
 * by a refinement edge; the original is kept (prune decides its fate).
 */
async function refine(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
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
    await repositories.graphs.insertEdges([{ id: context.ids.next("ge"), session_id: sessionId, from_node_id: node.id, to_node_id: nodeId, kind: "refinement" }], now);
    await repositories.graphs.touchGraph({ sessionId, now });
    return refined as GraphNode;
  });
  return { session_id: sessionId, node_id: created.id, nodes: [toOutputNode(created)] };
}

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
    else parents.set(node.id, into.map((edge) => edge.from_node_id));
  }
  return parents;
}

/**
 * Marks as pruned every node scoring strictly below the threshold and every
 * node left without an unpruned parent (graph-prune algorithm); the root and
 * unscored nodes are never pruned for their score. Pruned nodes are kept.
 * No model call.
 */
async function prune(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
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
  const newlyPruned = result.removed_ids.map((id) => byId.get(id) as GraphNode).filter((node) => node.status === "active");
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

async function finalize(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
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
  return { session_id: sessionId, nodes: terminals.map((node) => toOutputNode({ ...node, is_terminal: true })), conclusions: answer.conclusions };
}

async function state(input: GraphInput, context: ReasoningContext): Promise<GraphOutput> {
  const sessionId = input.session_id as string;
  const graph = await context.store.graphs.getGraph(sessionId);
  const limits = limitsOf(graph, input.config);
  const window = listWindow(input, graphStateNodeLimit);
  const nodes = await context.store.graphs.listNodes(sessionId, { status: "active", orderBy: "depth", limit: window.limit, offset: window.offset });
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

export const graphHandler = defineHandler(graphTool, async (input, context) => {
  switch (input.operation) {
    case "init":
      return init(input, context);
    case "generate":
      return generate(input, context);
    case "score":
      return score(input, context);
    case "aggregate":
      return aggregate(input, context);
    case "refine":
      return refine(input, context);
    case "prune":
      return prune(input, context);
    case "finalize":
      return finalize(input, context);
    case "state":
      return state(input, context);
  }
});

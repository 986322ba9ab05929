import { describeValue, IssueList } from "./invalid-input.ts";

/**
 * A Graph-of-Thoughts node as far as pruning is concerned. Field names follow
 * `reasoning_graph.nodes` (spec 3.7); `parent_ids` adds the extra parents of
 * aggregated nodes (a node merged from several).
 */
export interface PrunableNode {
  id: string;
  /** Quality in [0, 1] (any finite number is accepted); absent or null = not scored yet. */
  score?: number | null;
  /** The single parent, or null/absent for a root. */
  parent_id?: string | null;
  /** All parents (union with `parent_id`). */
  parent_ids?: readonly string[];
}

/** Input of {@link pruneGraph}. */
export interface PruneGraphInput {
  nodes: readonly PrunableNode[];
  /** Nodes scoring strictly below this are pruned (spec default 0.3). */
  threshold: number;
}

/** Result of {@link pruneGraph}; id lists are in input order. */
export interface PruneGraphResult {
  /** Every id removed: low scorers and the descendants they orphan. */
  removed_ids: string[];
  /** Every id kept. */
  kept_ids: string[];
  /** The removed nodes whose own score was below the threshold. */
  below_threshold_ids: string[];
  /** Nodes removed only because every parent was removed. */
  orphaned_ids: string[];
  /** `removed_ids.length`. */
  pruned_count: number;
}

/**
 * Graph-of-Thoughts PRUNE (`reasoning_graph` operation `prune`).
 *
 * A node is removed when it is not a root and
 * - its score is strictly below `threshold`, or
 * - every one of its parents is removed (it would be orphaned).
 * So removing a node removes its whole subtree, except descendants that are
 * still attached through another kept parent (aggregations). Roots (nodes
 * without parents) are never removed, whatever their score; unscored nodes
 * are never removed for their score. Deterministic, O(V + E) (Kahn's
 * algorithm over the parent links).
 *
 * Throws INVALID_INPUT naming the field for empty or duplicate ids, a parent
 * id that is not a node, a node listed as its own parent, a non-finite score
 * or threshold, and parent links that form a cycle (the nodes on or behind
 * it are named).
 */
export function pruneGraph(input: PruneGraphInput): PruneGraphResult {
  const issues = new IssueList();
  issues.finite(input.threshold, "threshold");
  if (!issues.array(input.nodes, "nodes")) issues.throwIfAny();
  const indexOf = issues.uniqueNames(
    input.nodes.map((node) => node?.id),
    (index) => `nodes.${index}.id`,
  );
  const parentsOf: number[][] = [];
  input.nodes.forEach((node, index) => {
    const field = `nodes.${index}`;
    const score = node?.score;
    if (score !== undefined && score !== null) issues.finite(score, `${field}.score`);
    const parents = new Set<number>();
    const addParent = (parentId: unknown, parentField: string) => {
      const parent = typeof parentId === "string" ? indexOf.get(parentId) : undefined;
      if (parent === undefined)
        issues.add(parentField, `must be the id of a node in nodes, got ${describeValue(parentId)}`);
      else if (parent === index) issues.add(parentField, "is the node itself; a node cannot be its own parent");
      else parents.add(parent);
    };
    if (node?.parent_id !== undefined && node.parent_id !== null) addParent(node.parent_id, `${field}.parent_id`);
    if (node?.parent_ids !== undefined && issues.array(node.parent_ids, `${field}.parent_ids`)) {
      node.parent_ids.forEach((parentId, position) => addParent(parentId, `${field}.parent_ids.${position}`));
    }
    parentsOf.push([...parents]);
  });
  issues.throwIfAny("Every parent_id must be the id of another node in the same graph.");

  const count = input.nodes.length;
  const childrenOf: number[][] = Array.from({ length: count }, () => []);
  const waiting = new Int32Array(count);
  parentsOf.forEach((parents, child) => {
    waiting[child] = parents.length;
    for (const parent of parents) (childrenOf[parent] as number[]).push(child);
  });
  const removed = new Uint8Array(count);
  const below = new Uint8Array(count);
  const removedParents = new Int32Array(count);
  const queue: number[] = [];
  for (let index = 0; index < count; index += 1) if (waiting[index] === 0) queue.push(index);
  let processed = 0;
  for (let head = 0; head < queue.length; head += 1) {
    const index = queue[head] as number;
    processed += 1;
    const parents = parentsOf[index] as number[];
    if (parents.length > 0) {
      const score = input.nodes[index]?.score;
      if (typeof score === "number" && score < input.threshold) {
        below[index] = 1;
        removed[index] = 1;
      } else if (removedParents[index] === parents.length) removed[index] = 1;
    }
    for (const child of childrenOf[index] as number[]) {
      if (removed[index] === 1) removedParents[child] = (removedParents[child] as number) + 1;
      waiting[child] = (waiting[child] as number) - 1;
      if (waiting[child] === 0) queue.push(child);
    }
  }
  if (processed < count) {
    const stuck = input.nodes
      .filter((_, index) => (waiting[index] as number) > 0)
      .map((node) => JSON.stringify(node.id));
    issues.add(
      "nodes",
      `parent links form a cycle through or behind ${stuck.slice(0, 10).join(", ")}${stuck.length > 10 ? ", …" : ""}; thoughts must form a directed acyclic graph`,
    );
    issues.throwIfAny();
  }
  const result: PruneGraphResult = {
    removed_ids: [],
    kept_ids: [],
    below_threshold_ids: [],
    orphaned_ids: [],
    pruned_count: 0,
  };
  input.nodes.forEach((node, index) => {
    if (removed[index] === 1) {
      result.removed_ids.push(node.id);
      (below[index] === 1 ? result.below_threshold_ids : result.orphaned_ids).push(node.id);
    } else result.kept_ids.push(node.id);
  });
  result.pruned_count = result.removed_ids.length;
  return result;
}

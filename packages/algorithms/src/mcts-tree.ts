import { describeValue, invalidInput, IssueList } from "./invalid-input.ts";
import { defaultExplorationConstant, ucb1Score } from "./ucb1.ts";

/**
 * One node of a Monte Carlo search tree: plain, JSON-serialisable data whose
 * fields map one-to-one onto a stored row (`children` is derived and can be
 * rebuilt from `parent_id` with {@link mctsTreeFromNodes}).
 */
export interface MctsNode {
  id: string;
  /** null for the root. */
  parent_id: string | null;
  /** 0 for the root; parent depth + 1 otherwise. */
  depth: number;
  /** Times an iteration passed through this node. */
  visits: number;
  /** Sum of the values backpropagated through this node; mean value = total_value / visits. */
  total_value: number;
  content: string;
  /** Child ids in the order they were added (the tie-break order). */
  children: string[];
}

/** A stored node without the derived `children` list. */
export type MctsNodeRecord = Omit<MctsNode, "children">;

/**
 * A search tree: the root id and the nodes by id. The `nodes` object has a
 * null prototype, so any string is a safe id. Serialise with `JSON.stringify`
 * or persist node by node; rebuild with {@link mctsTreeFromNodes}.
 */
export interface MctsTree {
  root_id: string;
  nodes: Record<string, MctsNode>;
}

/** Creates a tree holding only its root (depth 0, no visits). */
export function createMctsTree(input: { root_id: string; content: string }): MctsTree {
  const issues = new IssueList();
  issues.name(input.root_id, "root_id");
  if (typeof input.content !== "string") issues.add("content", `must be a string, got ${describeValue(input.content)}`);
  issues.throwIfAny();
  const nodes = emptyNodes();
  nodes[input.root_id] = {
    id: input.root_id,
    parent_id: null,
    depth: 0,
    visits: 0,
    total_value: 0,
    content: input.content,
    children: [],
  };
  return { root_id: input.root_id, nodes };
}

/**
 * Rebuilds a tree from stored nodes in O(n). Children are ordered as the
 * nodes appear in `nodes`. Throws INVALID_INPUT naming `nodes.i.<field>` for
 * duplicate or empty ids, no root or more than one root (`parent_id: null`),
 * an unknown parent, a depth that is not the parent's depth + 1 (which also
 * rules out cycles), and negative or fractional visits or non-finite values.
 */
export function mctsTreeFromNodes(input: { nodes: readonly MctsNodeRecord[] }): MctsTree {
  const issues = new IssueList();
  if (!issues.array(input.nodes, "nodes", 1)) issues.throwIfAny();
  const nodes = emptyNodes();
  const indexOf = issues.uniqueNames(
    input.nodes.map((node) => node?.id),
    (index) => `nodes.${index}.id`,
  );
  let rootId: string | undefined;
  input.nodes.forEach((node, index) => {
    const field = `nodes.${index}`;
    issues.integer(node?.visits, `${field}.visits`, 0);
    issues.finite(node?.total_value, `${field}.total_value`);
    if (typeof node?.content !== "string")
      issues.add(`${field}.content`, `must be a string, got ${describeValue(node?.content)}`);
    if (node?.parent_id === null) {
      if (rootId !== undefined)
        issues.add(
          `${field}.parent_id`,
          `is null, but ${JSON.stringify(rootId)} is already the root; a tree has one root`,
        );
      else rootId = node.id;
      if (node.depth !== 0) issues.add(`${field}.depth`, `must be 0 for the root, got ${describeValue(node.depth)}`);
    } else if (typeof node?.parent_id !== "string" || !indexOf.has(node.parent_id)) {
      issues.add(
        `${field}.parent_id`,
        `must be the id of another node (or null for the root), got ${describeValue(node?.parent_id)}`,
      );
    } else {
      const parent = input.nodes[indexOf.get(node.parent_id) as number] as MctsNodeRecord;
      if (node.depth !== parent.depth + 1) {
        issues.add(
          `${field}.depth`,
          `must be its parent's depth + 1 (${describeValue(parent.depth)} + 1), got ${describeValue(node.depth)}`,
        );
      }
    }
  });
  if (rootId === undefined) issues.add("nodes", "has no root; exactly one node must have parent_id null");
  issues.throwIfAny(
    "Pass every node of one tree as stored: one root with parent_id null and depth 0, every other node's parent present.",
  );
  for (const node of input.nodes) {
    nodes[node.id] = {
      id: node.id,
      parent_id: node.parent_id,
      depth: node.depth,
      visits: node.visits,
      total_value: node.total_value,
      content: node.content,
      children: [],
    };
  }
  for (const node of input.nodes)
    if (node.parent_id !== null) (nodes[node.parent_id] as MctsNode).children.push(node.id);
  return { root_id: rootId as string, nodes };
}

/** Options of {@link selectMctsLeaf} and {@link bestMctsPath}. */
export interface MctsOptions {
  /** UCB1 exploration constant c >= 0; default √2. */
  exploration_constant?: number;
}

/** The path chosen by {@link selectMctsLeaf}. */
export interface MctsSelection {
  /** Node ids from the root to the selected node. */
  path: string[];
  /** The last id of `path`: the node to expand or simulate from. */
  node_id: string;
}

/**
 * Selection phase: from the root, repeatedly moves to the child with the
 * highest UCB1 score (`Q/N + c·sqrt(ln N_parent / N)`) until it reaches a
 * leaf (a node without children). An unvisited child scores +Infinity, so the
 * first unvisited child in insertion order is taken before any visited one;
 * other ties go to the earliest child. O(depth × branching). Read-only.
 * Throws INVALID_INPUT if a child has more visits than its parent.
 */
export function selectMctsLeaf(tree: MctsTree, options: MctsOptions = {}): MctsSelection {
  const constant = explorationConstantOf(options);
  let node = nodeOf(tree, tree.root_id, "root_id");
  const path = [node.id];
  while (node.children.length > 0) {
    let best: MctsNode | undefined;
    let bestScore = -Infinity;
    for (const childId of node.children) {
      const child = nodeOf(tree, childId, `nodes.${node.id}.children`);
      if (child.visits > node.visits) {
        invalidInput(
          `nodes.${child.id}.visits`,
          `is ${child.visits}, more than its parent ${JSON.stringify(node.id)} (${node.visits}); backpropagate through every ancestor`,
        );
      }
      const score = ucb1Score(child.total_value, child.visits, node.visits, constant);
      if (best === undefined || score > bestScore) {
        best = child;
        bestScore = score;
      }
    }
    node = best as MctsNode;
    path.push(node.id);
  }
  return { path, node_id: node.id };
}

/** A child to add with {@link expandMctsNode}. */
export interface MctsChildInput {
  id: string;
  content: string;
}

/**
 * Expansion phase: appends children (in the given order) to `parent_id`.
 * Mutates `tree` in place — O(children), never a copy of the tree — and
 * returns the new nodes so the caller can persist exactly those. Throws
 * INVALID_INPUT for an unknown parent, an empty list, or ids that are empty,
 * repeated or already in the tree (nothing is added then).
 */
export function expandMctsNode(
  tree: MctsTree,
  input: { parent_id: string; children: readonly MctsChildInput[] },
): MctsNode[] {
  const parent = nodeOf(tree, input.parent_id, "parent_id");
  const issues = new IssueList();
  if (issues.array(input.children, "children", 1)) {
    issues.uniqueNames(
      input.children.map((child) => child?.id),
      (index) => `children.${index}.id`,
    );
    input.children.forEach((child, index) => {
      if (typeof child?.id === "string" && Object.hasOwn(tree.nodes, child.id))
        issues.add(`children.${index}.id`, `${JSON.stringify(child.id)} is already in the tree; ids must be new`);
      if (typeof child?.content !== "string")
        issues.add(`children.${index}.content`, `must be a string, got ${describeValue(child?.content)}`);
    });
  }
  issues.throwIfAny();
  return input.children.map((child) => {
    const node: MctsNode = {
      id: child.id,
      parent_id: parent.id,
      depth: parent.depth + 1,
      visits: 0,
      total_value: 0,
      content: child.content,
      children: [],
    };
    // defineProperty, not assignment: safe for any id (even "__proto__") on trees parsed from JSON.
    Object.defineProperty(tree.nodes, child.id, { value: node, enumerable: true, writable: true, configurable: true });
    parent.children.push(child.id);
    return node;
  });
}

/**
 * Backpropagation phase: adds `value` to `total_value` and 1 to `visits` of
 * `node_id` and every ancestor up to the root. Mutates `tree` in place in
 * O(depth) and returns the updated nodes, leaf first. Throws INVALID_INPUT
 * for an unknown node or a non-finite value (nothing is changed then).
 */
export function backpropagateMcts(tree: MctsTree, input: { node_id: string; value: number }): MctsNode[] {
  const issues = new IssueList();
  issues.finite(input.value, "value");
  issues.throwIfAny("value is the simulation's reward, a finite number (usually in [0, 1]).");
  const path: MctsNode[] = [];
  let node: MctsNode | undefined = nodeOf(tree, input.node_id, "node_id");
  while (node !== undefined) {
    path.push(node);
    if (node.parent_id === null) break;
    const parent: MctsNode = nodeOf(tree, node.parent_id, `nodes.${node.id}.parent_id`);
    // Depth strictly decreases towards the root, so a corrupted tree cannot loop forever.
    if (parent.depth !== node.depth - 1)
      invalidInput(
        `nodes.${node.id}.depth`,
        `is ${node.depth} but its parent's depth is ${parent.depth}; rebuild the tree with mctsTreeFromNodes`,
      );
    node = parent;
  }
  for (const step of path) {
    step.visits += 1;
    step.total_value += input.value;
  }
  return path;
}

/** One step of {@link bestMctsPath}; the first four fields match `best_path` of spec 3.12. */
export interface MctsPathStep {
  node_id: string;
  content: string;
  /** UCB1 of the node as a child of the previous step; null for the root. */
  ucb_score: number | null;
  visits: number;
  total_value: number;
  /** `total_value / visits`. */
  mean_value: number;
  /** Levels below the tree's root. */
  depth: number;
}

/**
 * The most robust line of play: from the root, repeatedly moves to the child
 * with the most visits (ties: higher mean value, then the earliest child),
 * stopping at a node none of whose children has been visited. Read-only,
 * O(depth × branching).
 */
export function bestMctsPath(tree: MctsTree, options: MctsOptions = {}): MctsPathStep[] {
  const constant = explorationConstantOf(options);
  let node = nodeOf(tree, tree.root_id, "root_id");
  const steps: MctsPathStep[] = [stepOf(node, null)];
  for (;;) {
    let best: MctsNode | undefined;
    for (const childId of node.children) {
      const child = nodeOf(tree, childId, `nodes.${node.id}.children`);
      if (child.visits === 0) continue;
      if (
        best === undefined ||
        child.visits > best.visits ||
        (child.visits === best.visits && meanOf(child) > meanOf(best))
      )
        best = child;
    }
    if (best === undefined) return steps;
    steps.push(stepOf(best, ucb1Score(best.total_value, best.visits, Math.max(node.visits, best.visits), constant)));
    node = best;
  }
}

function stepOf(node: MctsNode, ucbScore: number | null): MctsPathStep {
  return {
    node_id: node.id,
    content: node.content,
    ucb_score: ucbScore,
    visits: node.visits,
    total_value: node.total_value,
    mean_value: meanOf(node),
    depth: node.depth,
  };
}

function meanOf(node: MctsNode): number {
  return node.visits === 0 ? 0 : node.total_value / node.visits;
}

function explorationConstantOf(options: MctsOptions): number {
  const constant = options.exploration_constant ?? defaultExplorationConstant;
  const issues = new IssueList();
  if (issues.finite(constant, "exploration_constant") && constant < 0)
    issues.add("exploration_constant", `must be 0 or more, got ${constant}`);
  issues.throwIfAny();
  return constant;
}

function nodeOf(tree: MctsTree, id: string, field: string): MctsNode {
  const node = typeof id === "string" && Object.hasOwn(tree.nodes, id) ? tree.nodes[id] : undefined;
  if (node === undefined) invalidInput(field, `${describeValue(id)} is not a node of this tree`);
  return node;
}

function emptyNodes(): Record<string, MctsNode> {
  return Object.create(null) as Record<string, MctsNode>;
}

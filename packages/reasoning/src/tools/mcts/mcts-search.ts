import { DeliberateError } from "@deliberate/contracts";
import {
  backpropagateMcts,
  bestMctsPath,
  expandMctsNode,
  type MctsNode,
  type MctsPathStep,
  type MctsTree,
  selectMctsLeaf,
} from "@deliberate/algorithms";

/** What the search asks of the model; the handler wires these to modes. */
export interface MctsSearchModel {
  /** Candidate next steps after `path` (problem first); at most `count` are used. */
  expand(path: readonly string[], count: number): Promise<string[]>;
  /** The value of `path` in [0, 1], and whether its last step is a complete answer. */
  evaluate(path: readonly string[]): Promise<{ value: number; terminal: boolean }>;
}

/** Per-node facts the tree algorithm does not keep. */
export interface MctsNodeFacts {
  /** The model's own evaluation of the node; null if never evaluated (a root). */
  evaluation: number | null;
  /** Judged a complete answer: never expanded. */
  terminal: boolean;
}

export interface MctsSearchOptions {
  /** The whole stored tree (the search may start below its root). */
  tree: MctsTree;
  /** Facts by node id, for every node of `tree`; the search adds entries for new nodes. */
  facts: Map<string, MctsNodeFacts>;
  /** Node the search runs from (the tree's root for a new search). */
  start_id: string;
  iterations: number;
  exploration_constant: number;
  /** Deepest level below the start node that is expanded. */
  simulation_depth: number;
  /** Candidate steps requested per expansion. */
  branching_factor: number;
  model: MctsSearchModel;
  newId: () => string;
  onIteration?: (event: {
    iteration: number;
    iterations: number;
    node_id: string;
    value: number;
    expanded: boolean;
  }) => void;
}

export interface MctsSearchResult {
  /** Best line from the start node's most visited child down (by visits). */
  best_path: MctsPathStep[];
  /** Ids of nodes created by this search, parents before children. */
  created_ids: string[];
  iterations_completed: number;
  /** Model calls made (expansions + evaluations). */
  model_calls: number;
}

/** Contents from the tree's root down to `id` (the root's content is the problem). */
export function searchPath(tree: MctsTree, id: string): string[] {
  const contents: string[] = [];
  let node: MctsNode | undefined = tree.nodes[id];
  while (node !== undefined) {
    contents.push(node.content);
    node = node.parent_id === null ? undefined : tree.nodes[node.parent_id];
  }
  return contents.reverse();
}

/**
 * Monte Carlo tree search over reasoning steps, all state in memory:
 *
 * 1. Selection: from the start node, descend by UCB1
 *    (Q/N + c·sqrt(ln N_parent / N)); an unvisited child scores +∞, so every
 *    child is tried once before any is revisited (ties: the earliest child).
 * 2. Expansion: a visited leaf above the depth limit and not judged terminal
 *    gets the model's candidate next steps as children; the first is simulated.
 * 3. Simulation: the model evaluates the line of reasoning ending at the new
 *    (or unvisited) node, a value in [0, 1] — the model acts as the rollout
 *    policy's value estimate. A terminal or depth-limited leaf reached again
 *    reuses its stored evaluation (no model call).
 * 4. Backpropagation: visits + 1 and value added on the node and every
 *    ancestor, up to the tree's root (so a resumed subtree stays consistent).
 *
 * Each iteration depends on the last, so model calls are sequential. The
 * caller persists the tree once, after the loop.
 */
export async function runMctsSearch(options: MctsSearchOptions): Promise<MctsSearchResult> {
  const { tree, facts } = options;
  const view: MctsTree = { root_id: options.start_id, nodes: tree.nodes };
  const start = tree.nodes[options.start_id] as MctsNode;
  const created: string[] = [];
  let modelCalls = 0;

  const factsOf = (id: string): MctsNodeFacts => {
    const found = facts.get(id);
    if (found === undefined) throw new Error(`mcts search: no facts for node ${id}`);
    return found;
  };
  const expandable = (node: MctsNode) =>
    !factsOf(node.id).terminal && node.depth - start.depth < options.simulation_depth;

  for (let iteration = 1; iteration <= options.iterations; iteration += 1) {
    const { node_id: leafId } = selectMctsLeaf(view, { exploration_constant: options.exploration_constant });
    let target = tree.nodes[leafId] as MctsNode;
    let expanded = false;
    let value: number;
    if (target.visits === 0 && target.id !== start.id) {
      value = await evaluate(target);
    } else if (expandable(target)) {
      const steps = (await options.model.expand(searchPath(tree, target.id), options.branching_factor)).slice(
        0,
        options.branching_factor,
      );
      modelCalls += 1;
      const children = expandMctsNode(tree, {
        parent_id: target.id,
        children: steps.map((content) => ({ id: options.newId(), content })),
      });
      for (const child of children) {
        facts.set(child.id, { evaluation: null, terminal: false });
        created.push(child.id);
      }
      target = children[0] as MctsNode;
      expanded = true;
      value = await evaluate(target);
    } else {
      const stored = factsOf(target.id).evaluation;
      if (stored === null) {
        throw new DeliberateError({
          code: "INTERNAL",
          message: `MCTS reached node ${target.id}, which can neither be expanded nor has an evaluation.`,
        });
      }
      value = stored;
    }
    backpropagateMcts(tree, { node_id: target.id, value });
    options.onIteration?.({ iteration, iterations: options.iterations, node_id: target.id, value, expanded });
  }

  async function evaluate(node: MctsNode): Promise<number> {
    const judged = await options.model.evaluate(searchPath(tree, node.id));
    modelCalls += 1;
    facts.set(node.id, { evaluation: judged.value, terminal: judged.terminal });
    return judged.value;
  }

  const path = bestMctsPath(view, { exploration_constant: options.exploration_constant });
  return {
    best_path: path.slice(1),
    created_ids: created,
    iterations_completed: options.iterations,
    model_calls: modelCalls,
  };
}

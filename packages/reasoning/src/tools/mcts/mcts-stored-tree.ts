import { createMctsTree, type MctsTree, mctsTreeFromNodes } from "@deliberate/algorithms";
import { DeliberateError, type mctsTool, type ToolInput } from "@deliberate/contracts";
import type { ReasoningContext } from "../../define-handler.ts";
import type {
  MctsNode as StoredMctsNode,
  MctsNodeUpdate,
  NewMctsNode,
} from "../../store/repositories/mcts.repository.ts";
import type { MctsNodeFacts } from "./mcts-search.ts";

// Between the stored search tree and the in-memory one the search runs on: loading, and what to write back.

/** Where a search starts: the stored tree (continuing from `node_id`) or a new root, with each node's facts. */
export interface SearchStart {
  tree: MctsTree;
  startId: string;
  /** The stored nodes of the tree (none for a new search), to tell what the search changed. */
  stored: StoredMctsNode[];
  facts: Map<string, MctsNodeFacts>;
}

/** Loads the tree `node_id` belongs to (CONFLICT when that node is terminal), or starts one from `content`. */
export async function loadSearchStart(
  input: ToolInput<typeof mctsTool>,
  context: ReasoningContext,
  sessionId: string,
): Promise<SearchStart> {
  const facts = new Map<string, MctsNodeFacts>();
  if (input.node_id === undefined) {
    const startId = context.ids.next("mn");
    facts.set(startId, { evaluation: null, terminal: false });
    return { tree: createMctsTree({ root_id: startId, content: input.content as string }), startId, stored: [], facts };
  }
  const start = await context.store.mcts.getNode(sessionId, input.node_id);
  if (start.is_terminal) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Node ${start.id} was judged a complete answer; the search does not extend it.`,
      issues: [{ field: "node_id", message: "node is terminal" }],
      hint: "Continue from its parent or from the root_node_id of the search instead.",
    });
  }
  const stored = await context.store.mcts.listTree(start.root_id);
  for (const node of stored) facts.set(node.id, { evaluation: node.evaluation, terminal: node.is_terminal });
  return { tree: mctsTreeFromNodes({ nodes: stored }), startId: start.id, stored, facts };
}

/** The statistics the search added to stored nodes (only nodes it changed). */
export function changedNodes(
  stored: readonly StoredMctsNode[],
  tree: MctsTree,
  facts: ReadonlyMap<string, MctsNodeFacts>,
): MctsNodeUpdate[] {
  return stored
    .filter((node) => {
      const current = tree.nodes[node.id];
      const fact = facts.get(node.id);
      return (
        current !== undefined &&
        (current.visits !== node.visits ||
          current.total_value !== node.total_value ||
          fact?.terminal !== node.is_terminal)
      );
    })
    .map((node) => {
      const current = tree.nodes[node.id] as NonNullable<(typeof tree.nodes)[string]>;
      const fact = facts.get(node.id) as MctsNodeFacts;
      return {
        id: node.id,
        visits_added: current.visits - node.visits,
        value_added: current.total_value - node.total_value,
        evaluation: fact.evaluation,
        is_terminal: fact.terminal,
      };
    });
}

/** A node the search created, as stored. */
export function toNewNode(
  tree: MctsTree,
  facts: ReadonlyMap<string, MctsNodeFacts>,
  id: string,
  sessionId: string,
  rootId: string,
): NewMctsNode {
  const node = tree.nodes[id] as NonNullable<MctsTree["nodes"][string]>;
  const fact = facts.get(id) as MctsNodeFacts;
  return {
    id,
    session_id: sessionId,
    root_id: rootId,
    parent_id: node.parent_id,
    depth: node.depth,
    content: node.content,
    visits: node.visits,
    total_value: node.total_value,
    evaluation: fact.evaluation,
    is_terminal: fact.terminal,
    metadata: {},
  };
}

import { DeliberateError, mctsTool, type Thought, type ToolInput, type ToolOutput } from "@deliberate/contracts";
import type { NewMctsNode } from "../../store/repositories/mcts.repository.ts";
import type { z } from "zod";
import { nowIso, runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { runMctsSearch } from "./mcts-search.ts";
import { changedNodes, loadSearchStart, toNewNode } from "./mcts-stored-tree.ts";
import { formatSearchPath, mctsEvaluationMode, mctsExpansionMode } from "./mcts.mode.ts";
import type { snapshotSchema } from "../checkpoint/checkpoint.handler.ts";

type MctsInput = ToolInput<typeof mctsTool>;
type MctsOutput = ToolOutput<typeof mctsTool>;

/**
 * Runs the search in memory (every model call first), then stores the new
 * nodes, the changed statistics and one thought with the best line, in one
 * transaction.
 */
async function explore(input: MctsInput, context: ReasoningContext): Promise<MctsOutput> {
  const session = input.session_id === undefined ? undefined : await context.store.sessions.get(input.session_id);
  const sessionId = session?.id ?? context.ids.next("ses");
  const { tree, startId, stored, facts } = await loadSearchStart(input, context, sessionId);

  const result = await runMctsSearch({
    tree,
    facts,
    start_id: startId,
    iterations: input.iterations,
    exploration_constant: input.exploration_constant,
    simulation_depth: input.simulation_depth,
    branching_factor: input.branching_factor,
    newId: () => context.ids.next("mn"),
    model: {
      async expand(path, count) {
        const answer = await runMode(context, mctsExpansionMode, { path: formatSearchPath(path), count });
        return answer.steps;
      },
      async evaluate(path) {
        const answer = await runMode(context, mctsEvaluationMode, { path: formatSearchPath(path) });
        return { value: answer.value, terminal: answer.reaches_conclusion };
      },
    },
    onIteration: (event) =>
      context.progress({
        progress: event.iteration,
        total: event.iterations,
        message: `iteration ${event.iteration}/${event.iterations}: ${event.expanded ? "expanded, " : ""}value ${event.value.toFixed(2)}`,
      }),
  });

  const rootId = tree.root_id;
  const now = nowIso(context);
  const newNodes: NewMctsNode[] = [];
  if (input.node_id === undefined) newNodes.push(toNewNode(tree, facts, rootId, sessionId, rootId));
  for (const id of result.created_ids) newNodes.push(toNewNode(tree, facts, id, sessionId, rootId));
  const updates = changedNodes(stored, tree, facts);

  const bestPath = result.best_path.map((step) => ({
    node_id: step.node_id,
    content: step.content,
    ucb_score: step.ucb_score ?? 0,
    visits: step.visits,
    mean_value: step.mean_value,
    depth: (tree.nodes[step.node_id] as NonNullable<(typeof tree.nodes)[string]>).depth,
  }));
  const last = bestPath.at(-1);
  const thoughtId = context.ids.next("th");
  await context.store.transaction(async (repositories) => {
    if (session === undefined) await repositories.sessions.create({ id: sessionId, mode: "mcts", now });
    else await repositories.sessions.touch({ id: sessionId, now });
    await repositories.mcts.insertNodes(sessionId, newNodes, now);
    await repositories.mcts.updateNodes(updates, now);
    const previous = await repositories.thoughts.recent(sessionId, 1);
    await repositories.thoughts.append({
      id: thoughtId,
      session_id: sessionId,
      branch_id: session?.active_branch_id ?? null,
      parent_id: previous.at(-1)?.id ?? null,
      mode: "mcts",
      content: bestPath.map((step, index) => `${index + 1}. ${step.content}`).join("\n"),
      confidence: last?.mean_value ?? null,
      metadata: {
        root_node_id: rootId,
        start_node_id: startId,
        best_path: bestPath.map((step) => step.node_id),
        iterations: result.iterations_completed,
      },
      created_at: now,
    });
  });
  return {
    session_id: sessionId,
    root_node_id: rootId,
    best_path: bestPath,
    iterations_completed: result.iterations_completed,
    tree_size: Object.keys(tree.nodes).length,
    thought_id: thoughtId,
  };
}

/** One scored step of the session: its 1-based position among active thoughts and its quality. */
export interface QualityPoint {
  step: number;
  thought_id: string;
  quality: number;
}

/** The decision auto_backtrack takes, in code, from the quality history. */
export interface BacktrackDecision {
  should_backtrack: boolean;
  reason: string;
  target?: QualityPoint;
  current?: QualityPoint;
  /** Target quality minus current quality. */
  quality_drop?: number;
  /** The points considered: the current one and up to lookback_depth before it. */
  window: QualityPoint[];
}

/**
 * Decides whether quality dropped below the threshold: the newest scored step
 * is below `threshold` and one of the `lookbackDepth` scored steps before it
 * was at or above it. The target is the most recent such step (the last known
 * good state, losing the least work). Pure: same history, same decision.
 */
export function decideBacktrack(
  history: readonly QualityPoint[],
  options: { threshold: number; lookbackDepth: number },
): BacktrackDecision {
  const window = history.slice(-(options.lookbackDepth + 1));
  const current = window.at(-1);
  if (current === undefined || window.length < 2) {
    return {
      should_backtrack: false,
      reason: `Not enough quality history: ${history.length} scored step(s); at least two are needed to see a drop.`,
      window,
      ...(current ? { current } : {}),
    };
  }
  if (current.quality >= options.threshold) {
    return {
      should_backtrack: false,
      reason: `Current quality ${current.quality} (step ${current.step}) is at or above the threshold ${options.threshold}.`,
      current,
      window,
    };
  }
  const earlier = window.slice(0, -1);
  const target = [...earlier].reverse().find((point) => point.quality >= options.threshold);
  if (target === undefined) {
    const best = Math.max(...earlier.map((point) => point.quality));
    return {
      should_backtrack: false,
      reason: `Quality ${current.quality} is below the threshold ${options.threshold}, but none of the previous ${earlier.length} scored step(s) reached it either (best ${best}); backtracking within the lookback would not help. Try a different approach or a larger lookback_depth.`,
      current,
      window,
    };
  }
  const drop = target.quality - current.quality;
  return {
    should_backtrack: true,
    reason: `Quality fell from ${target.quality} at step ${target.step} to ${current.quality} at step ${current.step}, below the threshold ${options.threshold}; step ${target.step} is the last step at or above it.`,
    target,
    current,
    quality_drop: drop,
    window,
  };
}

/**
 * Reads the session's quality history (the confidence of each active
 * thought), decides in code, and with auto_execute restores the state as of
 * the target step: later thoughts are superseded (kept, not deleted), the
 * focus returns to the target's branch, and a checkpoint of the state before
 * is saved first so reasoning_checkpoint restore can undo it — all in one
 * transaction. No model call.
 */
async function autoBacktrack(input: MctsInput, context: ReasoningContext): Promise<MctsOutput> {
  const sessionId = input.session_id as string;
  await context.store.sessions.get(sessionId);
  const thoughts = await context.store.thoughts.listBySession(sessionId, { activeOnly: true });
  const history: QualityPoint[] = thoughts.flatMap((thought, index) =>
    thought.confidence === null ? [] : [{ step: index + 1, thought_id: thought.id, quality: thought.confidence }],
  );
  const decision = decideBacktrack(history, {
    threshold: input.quality_threshold,
    lookbackDepth: input.lookback_depth,
  });
  const suggestion = {
    should_backtrack: decision.should_backtrack,
    reason: decision.reason,
    ...(decision.target ? { target_step: decision.target.step, target_thought_id: decision.target.thought_id } : {}),
    ...(decision.quality_drop !== undefined ? { quality_drop: decision.quality_drop } : {}),
    ...(decision.current ? { current_quality: decision.current.quality } : {}),
  };
  const base = { session_id: sessionId, backtrack_suggestion: suggestion, quality_history: decision.window };
  if (!decision.should_backtrack || !input.auto_execute || decision.target === undefined)
    return { ...base, executed: false };

  const target = decision.target;
  const checkpointId = context.ids.next("cp");
  const now = nowIso(context);
  const superseded = await context.store.transaction(async (repositories) => {
    const session = await repositories.sessions.get(sessionId);
    const active = await repositories.thoughts.listBySession(sessionId, { activeOnly: true });
    if (active[target.step - 1]?.id !== target.thought_id) {
      throw new DeliberateError({
        code: "CONFLICT",
        message: `Session ${sessionId} changed while the backtrack was being decided.`,
        issues: [{ field: "session_id", message: "the session's thoughts changed concurrently" }],
        hint: "Call auto_backtrack again; nothing was changed.",
      });
    }
    const branches = await repositories.branches.listBySession(sessionId);
    const snapshot: z.infer<typeof snapshotSchema> = {
      active_branch_id: session.active_branch_id,
      thought_ids: active.map((thought) => thought.id),
      branch_statuses: Object.fromEntries(branches.map((branch) => [branch.id, branch.status])),
    };
    await repositories.checkpoints.create({
      id: checkpointId,
      session_id: sessionId,
      name: `before auto-backtrack to step ${target.step}`,
      description: decision.reason,
      thought_count: active.length,
      snapshot,
      now,
    });
    const keep: Thought[] = active.slice(0, target.step);
    const count = await repositories.thoughts.supersedeExcept(
      sessionId,
      keep.map((thought) => thought.id),
    );
    const targetThought = keep.at(-1) as Thought;
    await repositories.sessions.setActiveBranch({ id: sessionId, branchId: targetThought.branch_id, now });
    return count;
  });
  return { ...base, executed: true, checkpoint_id: checkpointId, superseded_thought_count: superseded };
}

export const mctsHandler = defineHandler(mctsTool, async (input, context) => {
  switch (input.operation) {
    case "explore":
      return explore(input, context);
    case "auto_backtrack":
      return autoBacktrack(input, context);
  }
});

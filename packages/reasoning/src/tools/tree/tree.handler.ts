import { DeliberateError, treeTool, type ToolOutput } from "@deliberate/contracts";
import type { Branch } from "../../store/repositories/branch.repository.ts";
import { nowIso, runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { treeMode } from "./tree.mode.ts";
import { ensureSession, historyMessages, loadSessionHistory } from "../../session-history.ts";

type TreeOutput = ToolOutput<typeof treeTool>;

function toOutputBranch(branch: Branch) {
  return { id: branch.id, content: branch.content, score: branch.score, status: branch.status };
}

/** The highest-scored active branch (ties: the earliest), as a recommendation. */
function recommend(branches: readonly Branch[]): string | undefined {
  let best: Branch | undefined;
  for (const branch of branches) {
    if (branch.status !== "active" || branch.parent_branch_id === null) continue;
    if (best === undefined || branch.score > best.score) best = branch;
  }
  return best ? `Explore branch ${best.id} next (score ${best.score}): ${best.content.slice(0, 160)}` : undefined;
}

async function create(
  input: { content: string; session_id?: string; num_branches: number },
  context: ReasoningContext,
): Promise<TreeOutput> {
  const history = await loadSessionHistory(context, input.session_id);
  const answer = await runMode(
    context,
    treeMode,
    { content: input.content, count: input.num_branches },
    { history: historyMessages(history) },
  );
  // The model may return fewer paths than asked (never fewer than two); extra ones are dropped.
  const paths = answer.branches.slice(0, input.num_branches);

  const now = nowIso(context);
  const rootId = context.ids.next("br");
  const childIds = paths.map(() => context.ids.next("br"));
  const thoughtIds = [context.ids.next("th"), ...paths.map(() => context.ids.next("th"))];
  const children = await context.store.transaction(async (repositories) => {
    await ensureSession(repositories, history, "tree", now);
    await repositories.branches.insert({
      id: rootId,
      session_id: history.sessionId,
      parent_branch_id: null,
      content: input.content,
      score: 1,
      now,
    });
    const root = await repositories.thoughts.append({
      id: thoughtIds[0] as string,
      session_id: history.sessionId,
      branch_id: rootId,
      parent_id: history.thoughts.at(-1)?.id ?? null,
      mode: "input",
      content: input.content,
      created_at: now,
    });
    const inserted: Branch[] = [];
    for (const [index, path] of paths.entries()) {
      const branchId = childIds[index] as string;
      inserted.push(
        await repositories.branches.insert({
          id: branchId,
          session_id: history.sessionId,
          parent_branch_id: rootId,
          content: path.content,
          score: path.score,
          now,
        }),
      );
      await repositories.thoughts.append({
        id: thoughtIds[index + 1] as string,
        session_id: history.sessionId,
        branch_id: branchId,
        parent_id: root.id,
        mode: "tree",
        content: path.content,
        confidence: path.score,
        created_at: now,
      });
    }
    await repositories.sessions.setActiveBranch({ id: history.sessionId, branchId: rootId, now });
    return inserted;
  });

  return {
    session_id: history.sessionId,
    branch_id: rootId,
    branches: children.map(toOutputBranch),
    recommendation: answer.recommendation,
  };
}

async function list(sessionId: string, context: ReasoningContext): Promise<TreeOutput> {
  const session = await context.store.sessions.get(sessionId);
  const branches = await context.store.branches.listBySession(sessionId);
  const recommendation = recommend(branches);
  return {
    session_id: sessionId,
    ...(session.active_branch_id ? { branch_id: session.active_branch_id } : {}),
    branches: branches.map(toOutputBranch),
    ...(recommendation ? { recommendation } : {}),
  };
}

async function focus(sessionId: string, branchId: string, context: ReasoningContext): Promise<TreeOutput> {
  await context.store.sessions.get(sessionId);
  const branch = await context.store.branches.getInSession(sessionId, branchId);
  if (branch.status !== "active") {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `Branch ${branchId} is ${branch.status}; only active branches can be focused.`,
      issues: [{ field: "branch_id", message: `branch is ${branch.status}` }],
      hint: "Call reasoning_tree with operation 'list' and pick an active branch, or create a new exploration.",
    });
  }
  await context.store.sessions.setActiveBranch({ id: sessionId, branchId, now: nowIso(context) });
  return {
    session_id: sessionId,
    branch_id: branchId,
    branches: [toOutputBranch(branch)],
    recommendation: `Branch ${branchId} is now the session's focus: continue it with reasoning_linear and session_id ${sessionId}.`,
  };
}

async function complete(
  sessionId: string,
  branchId: string,
  completed: boolean,
  context: ReasoningContext,
): Promise<TreeOutput> {
  const status = completed ? "completed" : "abandoned";
  const now = nowIso(context);
  await context.store.transaction(async (repositories) => {
    const session = await repositories.sessions.get(sessionId);
    const branch = await repositories.branches.getInSession(sessionId, branchId);
    if (branch.status !== "active") {
      throw new DeliberateError({
        code: "CONFLICT",
        message: `Branch ${branchId} is already ${branch.status}.`,
        issues: [{ field: "branch_id", message: `branch is ${branch.status}` }],
        hint: "Only active branches can be completed or abandoned; call reasoning_tree with operation 'list' to see them.",
      });
    }
    await repositories.branches.setStatus({ id: branchId, status, now });
    // A finished branch cannot stay the focus: fall back to its parent.
    if (session.active_branch_id === branchId) {
      await repositories.sessions.setActiveBranch({ id: sessionId, branchId: branch.parent_branch_id, now });
    }
  });
  const branches = await context.store.branches.listBySession(sessionId);
  const recommendation = recommend(branches);
  return {
    session_id: sessionId,
    branch_id: branchId,
    branches: branches.map(toOutputBranch),
    ...(recommendation ? { recommendation } : {}),
  };
}

export const treeHandler = defineHandler(treeTool, async (input, context) => {
  switch (input.operation) {
    case "create":
      return create(
        {
          content: input.content as string,
          num_branches: input.num_branches,
          ...(input.session_id ? { session_id: input.session_id } : {}),
        },
        context,
      );
    case "list":
      return list(input.session_id as string, context);
    case "focus":
      return focus(input.session_id as string, input.branch_id as string, context);
    case "complete":
      return complete(input.session_id as string, input.branch_id as string, input.completed, context);
  }
});

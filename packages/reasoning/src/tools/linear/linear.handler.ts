import { linearTool } from "@deliberate/contracts";
import { nowIso, runMode } from "@deliberate/engine";
import { defineHandler } from "../../define-handler.ts";
import { linearMode } from "./linear.mode.ts";
import { ensureSession, historyMessages, loadSessionHistory } from "../../session-history.ts";

export const linearHandler = defineHandler(linearTool, async (input, context) => {
  const history = await loadSessionHistory(context, input.session_id);
  const activeBranchId = history.session?.active_branch_id ?? null;
  const branch = activeBranchId ? await context.store.branches.find(activeBranchId) : undefined;
  const answer = await runMode(
    context,
    linearMode,
    {
      content: input.content,
      ...(input.confidence !== undefined ? { callerConfidence: input.confidence } : {}),
      ...(branch ? { branchFocus: branch.content } : {}),
    },
    { history: historyMessages(history) },
  );

  const thoughtId = context.ids.next("th");
  const now = nowIso(context);
  await context.store.transaction(async (repositories) => {
    await ensureSession(repositories, history, "linear", now);
    const inputThought = await repositories.thoughts.append({
      id: context.ids.next("th"),
      session_id: history.sessionId,
      branch_id: activeBranchId,
      parent_id: history.thoughts.at(-1)?.id ?? null,
      mode: "input",
      content: input.content,
      confidence: input.confidence ?? null,
      created_at: now,
    });
    await repositories.thoughts.append({
      id: thoughtId,
      session_id: history.sessionId,
      branch_id: activeBranchId,
      parent_id: inputThought.id,
      mode: "linear",
      content: answer.content,
      confidence: answer.confidence,
      metadata: { next_step: answer.next_step },
      created_at: now,
    });
  });

  return {
    thought_id: thoughtId,
    session_id: history.sessionId,
    content: answer.content,
    confidence: answer.confidence,
    next_step: answer.next_step,
  };
});

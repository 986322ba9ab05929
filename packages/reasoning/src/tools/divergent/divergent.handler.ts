import { divergentTool } from "@deliberate/contracts";
import { mapConcurrent, nowIso, runMode } from "@deliberate/engine";
import { defineHandler } from "../../define-handler.ts";
import { perspectiveLenses, perspectiveMode, rebelLenses, synthesisMode } from "./divergent.mode.ts";
import { ensureSession, historyMessages, loadSessionHistory } from "../../session-history.ts";

/**
 * Perspectives are independent, so they are asked concurrently, each under a
 * different lens (so they do not converge); the synthesis then sees them all.
 */
export const divergentHandler = defineHandler(divergentTool, async (input, context) => {
  const history = await loadSessionHistory(context, input.session_id);
  const lenses = (input.force_rebellion ? rebelLenses : perspectiveLenses).slice(0, input.num_perspectives);
  const total = lenses.length + 1;
  let done = 0;
  const messages = historyMessages(history);
  const perspectives = await mapConcurrent(lenses, context.concurrency, async (lens) => {
    const perspective = await runMode(
      context,
      perspectiveMode,
      { content: input.content, lens, rebellious: input.force_rebellion },
      { history: messages },
    );
    done += 1;
    context.progress({ progress: done, total, message: `perspective ${done} of ${lenses.length}` });
    return perspective;
  });
  const synthesis = await runMode(
    context,
    synthesisMode,
    {
      content: input.content,
      perspectives,
      challengeAssumptions: input.challenge_assumptions || input.force_rebellion,
    },
    { history: messages },
  );
  context.progress({ progress: total, total, message: "synthesis" });

  const thoughtId = context.ids.next("th");
  const inputThoughtId = context.ids.next("th");
  const now = nowIso(context);
  await context.store.transaction(async (repositories) => {
    await ensureSession(repositories, history, "divergent", now);
    await repositories.thoughts.append({
      id: inputThoughtId,
      session_id: history.sessionId,
      branch_id: history.session?.active_branch_id ?? null,
      parent_id: history.thoughts.at(-1)?.id ?? null,
      mode: "input",
      content: input.content,
      created_at: now,
    });
    await repositories.thoughts.append({
      id: thoughtId,
      session_id: history.sessionId,
      branch_id: history.session?.active_branch_id ?? null,
      parent_id: inputThoughtId,
      mode: "divergent",
      content: synthesis.synthesis,
      metadata: { perspectives, challenged_assumptions: synthesis.challenged_assumptions },
      created_at: now,
    });
  });

  const challenged = input.challenge_assumptions || input.force_rebellion;
  return {
    thought_id: thoughtId,
    session_id: history.sessionId,
    perspectives,
    ...(challenged ? { challenged_assumptions: synthesis.challenged_assumptions } : {}),
    synthesis: synthesis.synthesis,
  };
});

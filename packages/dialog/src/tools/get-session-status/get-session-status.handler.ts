import type { getSessionStatusTool, ToolInput, ToolOutput } from "@deliberate/contracts";
import type { DialogToolContext } from "../../dialog-context.ts";
import { nextStepFor, sessionStanding } from "../../session-state.ts";

/** Where a session stands, with expiry and the wall-time budget applied, and who graded its last iteration. Read-only. */
export async function getSessionStatus(
  input: ToolInput<typeof getSessionStatusTool>,
  context: DialogToolContext,
): Promise<ToolOutput<typeof getSessionStatusTool>> {
  const store = context.store.dialogSessions;
  const session = await store.getSession(input.session_id);
  const [iterations, exchangeCount] = await Promise.all([
    store.listIterations(session.session_id),
    store.countExchanges(session.session_id),
  ]);
  const standing = sessionStanding(session, context.clock.now());
  return {
    session_id: session.session_id,
    status: standing.status,
    current_iteration: session.completed_iterations,
    max_iterations: session.max_iterations,
    current_quality: session.current_quality,
    quality_threshold: session.quality_threshold,
    agents: session.agents.map((agent) => agent.name),
    last_activity: session.updated_at,
    ...(session.error !== null ? { error: session.error } : {}),
    mode: session.mode,
    stop_reason: standing.stopReason,
    stopping: {
      max_iterations: session.max_iterations,
      quality_threshold: session.quality_threshold,
      token_budget: session.token_budget,
      wall_time_budget_seconds: session.wall_time_budget_seconds,
    },
    tokens_used: session.tokens_used,
    graded_by: iterations[iterations.length - 1]?.graded_by ?? null,
    exchange_count: exchangeCount,
    expires_at: standing.expiresAt,
    expired: standing.expired,
    next_step: nextStepFor(session.session_id, standing.status, session.completed_iterations, standing.expired),
  };
}

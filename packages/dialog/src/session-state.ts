import { DeliberateError, type DialogSessionStatus, type DialogStopReason } from "@deliberate/contracts";
import type { DialogSession } from "./store/repositories/dialog-session.repository.ts";

/** How a session stands at a moment: its stored status, with expiry and the wall-time budget applied. */
export interface SessionStanding {
  /** `expired` when idle past its timeout before it stopped; `completed` when a budget ran out since. */
  status: DialogSessionStatus;
  stopReason: DialogStopReason | null;
  /** No exchange may run any more: it was idle longer than its timeout. */
  expired: boolean;
  /** ISO 8601: last activity plus the idle timeout. */
  expiresAt: string;
  elapsedSeconds: number;
  /** Why the session cannot run another exchange, in a sentence (null when it can). */
  blocked: string | null;
}

/**
 * The session as a reader sees it at `now`. A wall-time budget that ran out since the
 * last exchange makes the session completed (budget_exhausted), and a session idle past
 * its timeout before it stopped is expired; neither needs a write.
 */
export function sessionStanding(session: DialogSession, now: Date): SessionStanding {
  const lastActivity = new Date(session.updated_at).getTime();
  const expiresAtMs = lastActivity + session.idle_timeout_seconds * 1000;
  const elapsedSeconds = Math.max(0, (now.getTime() - new Date(session.created_at).getTime()) / 1000);
  let status = session.status;
  let stopReason = session.stop_reason;
  if (
    status !== "completed" &&
    session.wall_time_budget_seconds !== null &&
    elapsedSeconds >= session.wall_time_budget_seconds
  ) {
    status = "completed";
    stopReason = "budget_exhausted";
  }
  const expired = status !== "completed" && now.getTime() > expiresAtMs;
  if (expired) status = "expired";
  let blocked: string | null = null;
  if (status === "completed") {
    blocked =
      session.status === "completed"
        ? `Session ${session.session_id} is finished (${session.stop_reason}) after ${session.completed_iterations} iteration(s).`
        : `Session ${session.session_id} used up its wall-time budget of ${session.wall_time_budget_seconds} s (${Math.round(elapsedSeconds)} s since it started).`;
  } else if (expired) {
    blocked = `Session ${session.session_id} expired: no activity for more than ${formatDuration(session.idle_timeout_seconds)} (last activity ${session.updated_at}).`;
  }
  return { status, stopReason, expired, expiresAt: new Date(expiresAtMs).toISOString(), elapsedSeconds, blocked };
}

/** CONFLICT naming session_id when the session cannot run another exchange. */
export function assertCanRunExchange(session: DialogSession, now: Date): SessionStanding {
  const standing = sessionStanding(session, now);
  if (standing.blocked !== null) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `${standing.blocked} No further exchange can run; nothing was written.`,
      issues: [{ field: "session_id", message: standing.expired ? "the session expired" : "the session is finished" }],
      hint: standing.expired
        ? "Start a new session with start_reasoning_session; this one's record stays readable through get_reasoning_result."
        : "Call get_reasoning_result for the result, or start a new session to continue the topic.",
    });
  }
  return standing;
}

/** What the calling agent should do next, in one sentence. */
export function nextStepFor(
  sessionId: string,
  status: DialogSessionStatus,
  completedIterations: number,
  expired: boolean,
): string {
  if (status === "completed") return `The session is complete: call get_reasoning_result with session_id ${sessionId}.`;
  if (expired || status === "expired")
    return `The session expired; call get_reasoning_result with session_id ${sessionId} for what it produced, or start a new session.`;
  if (status === "error")
    return `The last exchange failed; call run_reasoning_exchange with session_id ${sessionId} to retry iteration ${completedIterations}.`;
  if (completedIterations === 0)
    return `Call run_reasoning_exchange with session_id ${sessionId} to begin (iteration 0).`;
  return `Call run_reasoning_exchange with session_id ${sessionId} for iteration ${completedIterations}.`;
}

function formatDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour(s)`;
  if (seconds % 60 === 0) return `${seconds / 60} minute(s)`;
  return `${seconds} second(s)`;
}

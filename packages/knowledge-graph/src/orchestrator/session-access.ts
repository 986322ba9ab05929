import { DeliberateError, type SessionStateInput, type ToolResult } from "@deliberate/contracts";
import { verifySessionState } from "../session-state.ts";
import type { StoredSession } from "../store/repositories/knowledge-graph.repository.ts";
import type { KnowledgeGraphOptions } from "./options.ts";
import type { PendingWork } from "./pending.ts";
import { checkAnswersMatchPending, readPending } from "./pending-answers.ts";
import type { KnowledgeGraphContext } from "./reasoning-run.ts";
import { requireBoundCaller } from "./session-binding.ts";

/** The name the state-signing key is kept under. */
export const stateSecretName = "session_state";

/** The key states are verified with: configured, else the one kept in the database (none yet: no state can be valid). */
export async function stateSecretFor(
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
): Promise<string | undefined> {
  return options.stateSecret ?? (await context.store.knowledgeGraph.findSecret(stateSecretName));
}

/**
 * Which session a request names (by id or by its signed state), verified.
 * `revision` is the state's revision when the request sent one, else null.
 */
export async function sessionIdOf(
  request: { reasoningSessionId?: string | null | undefined; sessionState?: SessionStateInput | null | undefined },
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
): Promise<{ sessionId: string | null; revision: number | null }> {
  if (request.sessionState == null) return { sessionId: request.reasoningSessionId ?? null, revision: null };
  const secret = await stateSecretFor(context, options);
  if (secret === undefined) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: "sessionState was not issued by this server (it has issued none yet)",
      issues: [{ field: "sessionState", message: "not issued by this server" }],
      hint: "Omit sessionState to start a new session.",
    });
  }
  const payload = verifySessionState(request.sessionState, secret);
  if (request.reasoningSessionId != null && request.reasoningSessionId !== payload.sessionId) {
    // The state is for another session than the one named; neither id is echoed (either may be another caller's).
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: "sessionState was issued for another session than reasoningSessionId names",
      issues: [{ field: "sessionState", message: "issued for another session" }],
      hint: "Send the updatedSessionState of this session's last response, or omit reasoningSessionId (the state names its session).",
    });
  }
  return { sessionId: payload.sessionId, revision: payload.revision };
}

/** When a live session stops being resumable for idleness. */
export function expiresAt(session: StoredSession, options: KnowledgeGraphOptions): string {
  return new Date(new Date(session.lastActiveAt).getTime() + options.idleTimeoutMs).toISOString();
}

/** Refuses a session that can no longer be continued. */
function closedError(session: StoredSession, field: string, options: KnowledgeGraphOptions): DeliberateError {
  const when =
    session.state === "ended" || session.state === "expired" ? session.closedAt : expiresAt(session, options);
  const what = session.state === "ended" ? "was ended" : "expired after being idle";
  return new DeliberateError({
    code: "NOT_FOUND",
    message: `Reasoning session ${session.sessionId} ${what} (${when}); it can no longer be continued`,
    issues: [{ field, message: `session ${session.sessionId} ${what}` }],
    hint: "Start a new session: omit reasoningSessionId and sessionState, or choose a new reasoningSessionId. The old graph stays readable in the session's export.",
  });
}

export type SessionAccess =
  | { kind: "new"; sessionId: string | null }
  | { kind: "existing"; session: StoredSession; pending: PendingWork | null };

/**
 * Resolves the session a request continues and checks the host's answers
 * against what the session waits for. Reads only: a refused request writes nothing.
 */
export async function accessSession(
  request: {
    reasoningSessionId?: string | null | undefined;
    sessionState?: SessionStateInput | null | undefined;
    toolResults?: ToolResult[] | null | undefined;
    userInput?: string | null | undefined;
  },
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
  now: Date,
): Promise<SessionAccess> {
  const named = await sessionIdOf(request, context, options);
  const field = request.sessionState != null ? "sessionState" : "reasoningSessionId";
  const repository = context.store.knowledgeGraph;
  const session = named.sessionId === null ? undefined : await repository.findSession(named.sessionId);
  if (!session) {
    await refuseNewSessionRequest(request, named, repository);
    return { kind: "new", sessionId: named.sessionId };
  }

  // Before anything about the session is told: a session named by id alone must be the caller's.
  if (named.revision === null) await requireBoundCaller(context, session.sessionId, "continue");
  if (session.state === "ended" || session.state === "expired") throw closedError(session, field, options);
  if (expiresAt(session, options) <= now.toISOString()) throw closedError(session, field, options);
  if (named.revision !== null && named.revision !== session.revision) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `sessionState is stale: it was issued at revision ${named.revision} of session ${session.sessionId}, which is now at revision ${session.revision}`,
      issues: [{ field: "sessionState", message: "stale: a later call changed the session" }],
      hint: "Send the updatedSessionState of the session's latest response, or omit sessionState and resume by reasoningSessionId.",
    });
  }

  const pending = readPending(session);
  checkAnswersMatchPending(request, session.sessionId, pending);
  return { kind: "existing", session, pending };
}

/**
 * Refuses what cannot start a new session: a signed state of a session this server does not have, an id
 * another kind of session holds, and answers (toolResults, userInput) that no session waits for.
 */
async function refuseNewSessionRequest(
  request: { toolResults?: ToolResult[] | null | undefined; userInput?: string | null | undefined },
  named: { sessionId: string | null; revision: number | null },
  repository: KnowledgeGraphContext["store"]["knowledgeGraph"],
): Promise<void> {
  if (named.revision !== null) {
    throw new DeliberateError({
      code: "NOT_FOUND",
      message: `sessionState names session ${named.sessionId}, which this server does not have`,
      issues: [{ field: "sessionState", message: "unknown session" }],
      hint: "Omit sessionState to start a new session.",
    });
  }
  if (named.sessionId !== null && (await repository.sessionIdTaken(named.sessionId))) {
    throw new DeliberateError({
      code: "CONFLICT",
      message: `reasoningSessionId ${named.sessionId} is a session of another kind (not a knowledge-graph session)`,
      issues: [{ field: "reasoningSessionId", message: "used by another kind of session" }],
      hint: "Choose another reasoningSessionId, or omit it to get a new one.",
    });
  }
  if (request.toolResults != null) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: "toolResults answer a pending session, and this request starts a new one",
      issues: [{ field: "toolResults", message: "no session waits for a tool result" }],
      hint: "Send toolResults with the reasoningSessionId of the session that asked for the tool call.",
    });
  }
  if (request.userInput != null) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: "userInput answers a pending session, and this request starts a new one",
      issues: [{ field: "userInput", message: "no session waits for user input" }],
      hint: "Send userInput with the reasoningSessionId of the session that asked for it.",
    });
  }
}

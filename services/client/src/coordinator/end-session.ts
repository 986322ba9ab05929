import type { UpdatedSessionState } from "@deliberate/contracts";
import type { ReasoningVia } from "../reasoning-operations.ts";
import { type CoordinatorContext, sessionKey } from "./coordinator-context.ts";
import type { ReasoningSessionRecord } from "./coordinator-types.ts";
import { bounded } from "./gates.ts";

// Ending a reasoning session on the server (best effort, bounded by `endSessionTimeoutMs`), and forgetting it here.

/** A session as the server knows it: its id, its latest signed state, and how to reach its endSession. */
export interface ServerSession {
  reasoningSessionId: string;
  sessionState: UpdatedSessionState | null;
  via: { endSession: ReasoningVia };
}

/** Sends endSession (never throws: the result is reported as an `end_session` or `end_session_failed` event). */
export function endOnServer(c: CoordinatorContext, session: ServerSession, detail: string): Promise<void> {
  return bounded(c, "end_session", c.bounds.endSessionMs, undefined, (signal) =>
    c.client.reasoning.endSession(
      // With its signed state: a server ends a session by its id alone only for the caller the session is bound to.
      {
        reasoningSessionId: session.reasoningSessionId,
        ...(session.sessionState !== null ? { sessionState: session.sessionState } : {}),
      },
      { via: session.via.endSession, timeoutMs: c.bounds.endSessionMs, signal },
    ),
  ).then(
    () => c.emit({ type: "progress", reasoningSessionId: session.reasoningSessionId, stage: "end_session", detail }),
    (error: unknown) =>
      c.emit({
        type: "progress",
        reasoningSessionId: session.reasoningSessionId,
        stage: "end_session_failed",
        detail: error instanceof Error ? error.message : String(error),
      }),
  );
}

/** The conversation stops keeping `reasoningSessionId` (when it is the one kept): it was ended. */
export async function forgetKept(
  c: CoordinatorContext,
  conversationId: string | undefined,
  reasoningSessionId: string,
): Promise<void> {
  if (!c.conversations || conversationId === undefined) return;
  const found = await c.conversations.find(conversationId);
  const kept = found && ("live" in found ? found.live : found.expired);
  if (kept?.reasoningSessionId === reasoningSessionId) await c.conversations.forget(conversationId);
}

/** Ends the session on the server (best effort). With `background`, the caller does not wait (a server that stopped answering must not delay the fallback). */
export async function endSession(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  background = false,
): Promise<void> {
  if (record.status === "SESSION_ENDED") return;
  record.status = "SESSION_ENDED";
  const ending = endOnServer(
    c,
    { reasoningSessionId: record.reasoningSessionId, sessionState: record.latestSessionState, via: record.via },
    "the session was ended",
  );
  const forgotten = Promise.all([
    c.store.delete(sessionKey(record.reasoningSessionId)),
    forgetKept(c, record.request.conversationId, record.reasoningSessionId),
  ]);
  if (background) {
    forgotten.catch(() => {});
    return;
  }
  await ending;
  await forgotten;
}

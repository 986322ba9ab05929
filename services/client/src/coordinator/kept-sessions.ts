import type { ExecuteTaskResponse, UpdatedSessionState } from "@deliberate/contracts";
import { isClientError } from "../errors.ts";
import type { KeptSession } from "./conversation-sessions.ts";
import { type CoordinatorContext, sessionKey } from "./coordinator-context.ts";
import type { CoordinatorOutcome, ReasoningSessionRecord } from "./coordinator-types.ts";
import { endOnServer, endSession } from "./end-session.ts";
import { save } from "./outcomes.ts";

// A conversation's reasoning session kept open across its turns (`keepSessionAcrossTurns`): continued by the next
// turn that reasons, ended by `endConversation`, on idle or expiry, and when a turn falls back.

/** At the end of a query: keeps the session open for the conversation's next turn when asked to, else ends it. */
export async function endOrKeep(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  outcome: CoordinatorOutcome,
  background: boolean,
): Promise<void> {
  const conversationId = record.request.conversationId;
  const keep =
    c.conversations !== null &&
    conversationId !== undefined &&
    outcome.kind === "answer" &&
    outcome.source === "reasoning" &&
    record.latestSessionState !== null;
  if (!keep) return endSession(c, record, background);
  await c.conversations?.keep(
    conversationId,
    {
      reasoningSessionId: record.reasoningSessionId,
      sessionState: record.latestSessionState as UpdatedSessionState,
      via: record.via,
    },
    record.lastCompleted?.sessionExpiresAt ?? null,
  );
  record.status = "SESSION_KEPT_OPEN";
  await c.store.delete(sessionKey(record.reasoningSessionId));
  c.emit({
    type: "progress",
    reasoningSessionId: record.reasoningSessionId,
    stage: "session_kept",
    detail: "the session stays open for the conversation's next turn",
  });
}

/** Continues the conversation's kept session in `record`, if it has a live one (an expired one is ended). */
export async function continueKept(c: CoordinatorContext, record: ReasoningSessionRecord): Promise<KeptSession | null> {
  const conversationId = record.request.conversationId;
  if (!c.conversations || conversationId === undefined) return null;
  const found = await c.conversations.find(conversationId);
  if (!found) return null;
  if ("expired" in found) {
    await endOnServer(c, found.expired, "the conversation's idle session was ended");
    await c.conversations.forget(conversationId);
    return null;
  }
  record.reasoningSessionId = found.live.reasoningSessionId;
  record.latestSessionState = found.live.sessionState;
  record.via = found.live.via;
  return found.live;
}

/**
 * The first call of a turn that continues a kept session: if the server closed that session meanwhile (expired,
 * ended: NOT_FOUND) or it moved on (CONFLICT), the turn starts a new session instead.
 */
export async function continueOrRestart(
  c: CoordinatorContext,
  record: ReasoningSessionRecord,
  call: () => Promise<ExecuteTaskResponse>,
): Promise<ExecuteTaskResponse> {
  try {
    return await call();
  } catch (error) {
    if (!isClientError(error) || (error.code !== "NOT_FOUND" && error.code !== "CONFLICT")) throw error;
    c.emit({
      type: "progress",
      reasoningSessionId: record.reasoningSessionId,
      stage: "session_restarted",
      detail: error.message,
    });
    if (record.request.conversationId !== undefined) await c.conversations?.forget(record.request.conversationId);
    await c.store.delete(sessionKey(record.reasoningSessionId));
    record.reasoningSessionId = c.newId();
    record.latestSessionState = null;
    await save(c, record);
    return call();
  }
}

/** Ends the reasoning session a conversation kept open, if any (`coordinator.endConversation`). */
export async function endConversation(c: CoordinatorContext, conversationId: string): Promise<void> {
  const found = await c.conversations?.find(conversationId);
  if (!found) return;
  await endOnServer(c, "live" in found ? found.live : found.expired, "the conversation's session was ended");
  await c.conversations?.forget(conversationId);
}

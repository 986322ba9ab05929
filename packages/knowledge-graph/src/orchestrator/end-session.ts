import { DeliberateError, type EndSessionRequest, type EndSessionResponse } from "@deliberate/contracts";
import type { KnowledgeGraphOptions } from "./options.ts";
import type { KnowledgeGraphContext } from "./reasoning-run.ts";
import { expiresAt, sessionIdOf } from "./session-access.ts";
import { requireBoundCaller } from "./session-binding.ts";

/**
 * reasoning/endSession: the session stops counting toward the cap and can no
 * longer be continued; its graph stays, read-only, for exports. Ending a
 * closed session reports how it closed (idempotent). A session idle past the
 * timeout is reported (and recorded) as expired.
 */
export async function endSession(
  request: EndSessionRequest,
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
): Promise<EndSessionResponse> {
  const { sessionId, revision } = await sessionIdOf(request, context, options);
  const repository = context.store.knowledgeGraph;
  const session = sessionId === null ? undefined : await repository.findSession(sessionId);
  if (!session || sessionId === null) {
    throw new DeliberateError({
      code: "NOT_FOUND",
      message: `No knowledge-graph session ${sessionId ?? ""}`.trim(),
      issues: [
        {
          field: request.reasoningSessionId != null ? "reasoningSessionId" : "sessionState",
          message: "unknown session",
        },
      ],
      hint: "Pass the reasoningSessionId of a reasoning/executeTask response, with its updatedSessionState as sessionState.",
    });
  }
  // Any state the server signed for the session ends it (even an earlier revision's); the id alone only the caller's own.
  if (revision === null) await requireBoundCaller(context, sessionId, "end");
  const now = context.clock.now().toISOString();
  const counts = await repository.countGraph(sessionId);
  if (session.state === "ended" || session.state === "expired") {
    return {
      reasoningSessionId: sessionId,
      status: session.state,
      alreadyClosed: true,
      endedAt: session.closedAt ?? session.updatedAt,
      ...counts,
    };
  }
  const idleSince = expiresAt(session, options);
  if (idleSince <= now) {
    await repository.closeSession({ sessionId, state: "expired", closedAt: idleSince, now });
    return { reasoningSessionId: sessionId, status: "expired", alreadyClosed: true, endedAt: idleSince, ...counts };
  }
  await repository.closeSession({ sessionId, state: "ended", closedAt: now, now });
  return { reasoningSessionId: sessionId, status: "ended", alreadyClosed: false, endedAt: now, ...counts };
}

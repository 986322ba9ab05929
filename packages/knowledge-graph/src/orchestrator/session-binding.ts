import { DeliberateError } from "@deliberate/contracts";
import type { KnowledgeGraphContext } from "./reasoning-run.ts";

/**
 * Refuses to continue or end a session named by its id alone unless the
 * session is bound to this caller: the signed `sessionState` is the session's
 * capability; without it, only the caller that created the session (as its
 * surface identified it) may use the id. A session created anonymously, or a
 * call from an anonymous caller, needs the state. The refusal is the same
 * whoever holds the session, so it tells nothing about another caller's session.
 */
export async function requireBoundCaller(
  context: KnowledgeGraphContext,
  sessionId: string,
  action: "continue" | "end",
): Promise<void> {
  const owner = await context.store.knowledgeGraphOwners.ownerOf(sessionId);
  if (owner !== null && context.caller !== null && owner === context.caller) return;
  throw new DeliberateError({
    code: "CONFLICT",
    message: `reasoningSessionId ${sessionId} names a session this caller cannot ${action} by its id alone: send its sessionState`,
    issues: [{ field: "sessionState", message: `required to ${action} session ${sessionId}` }],
    hint:
      action === "continue"
        ? "Send the updatedSessionState of the session's last response as sessionState; to start a new session instead, choose another reasoningSessionId or omit it."
        : "Send the updatedSessionState of the session's last response as sessionState.",
  });
}

/** Binds a session the caller just created to it (anonymous callers bind nothing). */
export async function bindToCaller(
  context: KnowledgeGraphContext,
  repositories: Pick<KnowledgeGraphContext["store"], "knowledgeGraphOwners">,
  sessionId: string,
  now: string,
): Promise<void> {
  if (context.caller === null) return;
  await repositories.knowledgeGraphOwners.bind({ sessionId, owner: context.caller, now });
}

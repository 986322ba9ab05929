import { DeliberateError } from "@deliberate/contracts";
import type { KnowledgeGraphOptions } from "../options.ts";
import type { KnowledgeGraphContext } from "../reasoning-run.ts";
import { expiresAt } from "../session-access.ts";

/** LIMIT_EXCEEDED for a new session when the cap is reached, saying when a place frees at the latest. */
export function overCapError(
  options: KnowledgeGraphOptions,
  oldest: Parameters<typeof expiresAt>[0] | undefined,
): DeliberateError {
  return new DeliberateError({
    code: "LIMIT_EXCEEDED",
    message: `${options.maxActiveSessions} reasoning sessions are active, the most this server keeps; a new session cannot start`,
    issues: [{ field: "reasoningSessionId", message: "no room for a new session" }],
    // When a place frees, but not which session holds it: that may be another caller's.
    hint: `End sessions you no longer need with reasoning/endSession, or continue an existing one${oldest ? `; the next place frees at ${expiresAt(oldest, options)} at the latest, unless the session holding it is used` : ""}.`,
    retryable: true,
  });
}

/** Refuses a new session when the cap is reached (checked again when the session is written). */
export async function refuseOverCap(
  context: KnowledgeGraphContext,
  options: KnowledgeGraphOptions,
  idleCutoff: string,
): Promise<void> {
  const repository = context.store.knowledgeGraph;
  if ((await repository.countLiveSessions({ idleCutoff })) >= options.maxActiveSessions) {
    throw overCapError(options, await repository.leastRecentlyActiveSession({ idleCutoff }));
  }
}

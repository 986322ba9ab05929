import type { UpdatedSessionState } from "@deliberate/contracts";
import type { ReasoningVia } from "../reasoning-operations.ts";
import type { ReasoningStateStore } from "./state-store.ts";

/** A conversation's reasoning session kept open between its turns. */
export interface KeptSession {
  reasoningSessionId: string;
  /** The signed state of the session's latest response: continuing and ending send it. */
  sessionState: UpdatedSessionState;
  via: { executeTask: ReasoningVia; endSession: ReasoningVia };
  /** When the coordinator stops continuing it (ms): the earlier of its idle window and the server's expiry. */
  expiresAt: number;
}

/** Whether and how long a conversation's session stays open between turns. */
export interface KeepSessionOptions {
  /** A turn later than this after the previous one starts a new session (the old one is ended). Default 20 minutes. */
  idleMs?: number;
}

const keptKey = (conversationId: string) => `deliberate:kept-session:${conversationId}`;

function isKeptSession(value: unknown): value is KeptSession {
  const record = value as Partial<KeptSession> | undefined;
  return (
    typeof record?.reasoningSessionId === "string" &&
    typeof record.expiresAt === "number" &&
    typeof record.sessionState?.token === "string"
  );
}

/**
 * The sessions kept open per conversation (in the coordinator's state store):
 * a turn continues its conversation's graph instead of rebuilding it, until
 * the host ends the conversation, the idle window passes, or the server's
 * own idle expiry (`sessionExpiresAt`) comes first.
 */
export function createConversationSessions(options: {
  store: ReasoningStateStore;
  now: () => number;
  keep: KeepSessionOptions;
}) {
  const idleMs = options.keep.idleMs ?? 20 * 60_000;
  return {
    idleMs,
    /** The conversation's kept session: `live` to continue, `expired` to end, or none. */
    async find(conversationId: string): Promise<{ live: KeptSession } | { expired: KeptSession } | undefined> {
      const value = await options.store.get(keptKey(conversationId));
      if (!isKeptSession(value)) return undefined;
      return value.expiresAt > options.now() ? { live: value } : { expired: value };
    },
    /** Keeps a session open for the conversation's next turn. */
    async keep(
      conversationId: string,
      session: Omit<KeptSession, "expiresAt">,
      serverExpiresAt: string | null,
    ): Promise<void> {
      const server = serverExpiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(serverExpiresAt);
      // A margin before the server's expiry, so a turn never arrives just as the server closes the session.
      const expiresAt = Math.min(
        options.now() + idleMs,
        Number.isFinite(server) ? server - 5_000 : Number.POSITIVE_INFINITY,
      );
      // Kept in the store a while past its expiry, so the next turn still finds it and ends it on the server.
      await options.store.set(keptKey(conversationId), { ...session, expiresAt }, { ttlMs: idleMs * 2 });
    },
    async forget(conversationId: string): Promise<void> {
      await options.store.delete(keptKey(conversationId));
    },
  };
}

export type ConversationSessions = ReturnType<typeof createConversationSessions>;

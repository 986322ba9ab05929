import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { SessionBindingDatabase } from "../tables.ts";

/**
 * Which caller each session is bound to. A session created by a caller the
 * surface could identify is bound to it; one created anonymously has no row.
 */
export function createSessionOwnersRepository(database: Kysely<Database>) {
  const db = database as unknown as Kysely<SessionBindingDatabase>;
  return {
    /** Binds a new session to its creator. */
    async bind(input: { sessionId: string; owner: string; now: string }): Promise<void> {
      await db
        .insertInto("knowledge_graph_session_owners")
        .values({ session_id: input.sessionId, owner: input.owner, created_at: input.now })
        .execute();
    },

    /** The caller a session is bound to, or null when it is bound to none. */
    async ownerOf(sessionId: string): Promise<string | null> {
      const row = await db
        .selectFrom("knowledge_graph_session_owners")
        .select("owner")
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      return row?.owner ?? null;
    },
  };
}

export type SessionOwnersRepository = ReturnType<typeof createSessionOwnersRepository>;

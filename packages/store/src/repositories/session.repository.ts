import { DeliberateError } from "@deliberate/base";
import type { Session } from "@deliberate/contracts";
import type { DatabaseExecutor } from "../executor.ts";
import type { SessionRow } from "../tables/session.table.ts";

function toSession(row: SessionRow): Session {
  return { ...row };
}

/** Sessions: the unit of continuity across tool calls. */
export function createSessionRepository(db: DatabaseExecutor) {
  return {
    async create(input: { id: string; mode: string; now: string }): Promise<Session> {
      const row: SessionRow = { id: input.id, mode: input.mode, active_branch_id: null, created_at: input.now, updated_at: input.now };
      await db.insertInto("sessions").values(row).execute();
      return toSession(row);
    },

    async find(id: string): Promise<Session | undefined> {
      const row = await db.selectFrom("sessions").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toSession(row) : undefined;
    },

    /** Like find, but a missing session is a NOT_FOUND error that says what to do. */
    async get(id: string): Promise<Session> {
      const session = await this.find(id);
      if (!session) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Session not found: ${id}`,
          issues: [{ field: "session_id", message: `no session with id '${id}'` }],
          hint: "Omit session_id to start a new session, or pass an id returned by an earlier call.",
        });
      }
      return session;
    },

    async setActiveBranch(input: { id: string; branchId: string | null; now: string }): Promise<void> {
      await db.updateTable("sessions").set({ active_branch_id: input.branchId, updated_at: input.now }).where("id", "=", input.id).execute();
    },

    async touch(input: { id: string; now: string }): Promise<void> {
      await db.updateTable("sessions").set({ updated_at: input.now }).where("id", "=", input.id).execute();
    },

    async list(input: { limit: number }): Promise<Session[]> {
      const rows = await db.selectFrom("sessions").selectAll().orderBy("updated_at", "desc").limit(input.limit).execute();
      return rows.map(toSession);
    },
  };
}
export type SessionRepository = ReturnType<typeof createSessionRepository>;

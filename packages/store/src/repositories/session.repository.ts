import { DeliberateError } from "@deliberate/base";
import { sql } from "kysely";
import type { Session } from "@deliberate/contracts";
import { runDeferrableWrite } from "../deferrable-write.ts";
import { dialectOf } from "../dialect.ts";
import { directSqliteOf } from "../direct-sqlite.ts";
import type { DatabaseExecutor } from "../executor.ts";
import { preparedQuery } from "../prepared-query.ts";
import type { SessionRow } from "../tables/session.table.ts";

function toSession(row: SessionRow): Session {
  return { ...row };
}

/** Read on nearly every call (compiled once). */
const sessionById = preparedQuery((db: DatabaseExecutor, id: string) =>
  db.selectFrom("sessions").selectAll().where("id", "=", id),
);

/** Sessions: the unit of continuity across tool calls. */
export function createSessionRepository(db: DatabaseExecutor) {
  // In a SQLite transaction, the writes of every call run as prepared statements, synchronously (see direct-sqlite.ts).
  const direct = directSqliteOf(db);
  // On Postgres the writes nobody reads back wait for the transaction's COMMIT, sent with it in one round trip.
  const postgres = direct === undefined && dialectOf(db) === "postgres";
  return {
    async create(input: { id: string; mode: string; now: string }): Promise<Session> {
      const row: SessionRow = {
        id: input.id,
        mode: input.mode,
        active_branch_id: null,
        created_at: input.now,
        updated_at: input.now,
      };
      if (direct !== undefined) {
        direct.run(
          "insert into sessions (id, mode, active_branch_id, created_at, updated_at) values (?, ?, null, ?, ?)",
          [row.id, row.mode, row.created_at, row.updated_at],
        );
      } else if (postgres) {
        await runDeferrableWrite(
          db,
          "insert into sessions (id, mode, active_branch_id, created_at, updated_at) values ($1, $2, null, $3, $4)",
          [row.id, row.mode, row.created_at, row.updated_at],
        );
      } else await db.insertInto("sessions").values(row).execute();
      return toSession(row);
    },

    async find(id: string): Promise<Session | undefined> {
      const [row] =
        direct !== undefined
          ? direct.all<SessionRow>("select * from sessions where id = ?", [id])
          : await sessionById(db, id);
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
      if (direct !== undefined)
        return direct.run("update sessions set active_branch_id = ?, updated_at = ? where id = ?", [
          input.branchId,
          input.now,
          input.id,
        ]);
      if (postgres)
        return runDeferrableWrite(db, "update sessions set active_branch_id = $1, updated_at = $2 where id = $3", [
          input.branchId,
          input.now,
          input.id,
        ]);
      await db
        .updateTable("sessions")
        .set({ active_branch_id: input.branchId, updated_at: input.now })
        .where("id", "=", input.id)
        .execute();
    },

    async touch(input: { id: string; now: string }): Promise<void> {
      if (direct !== undefined)
        return direct.run("update sessions set updated_at = ? where id = ?", [input.now, input.id]);
      if (postgres)
        return runDeferrableWrite(db, "update sessions set updated_at = $1 where id = $2", [input.now, input.id]);
      await db.updateTable("sessions").set({ updated_at: input.now }).where("id", "=", input.id).execute();
    },

    async list(input: { limit: number }): Promise<Session[]> {
      const rows = await db
        .selectFrom("sessions")
        .selectAll()
        .orderBy("updated_at", "desc")
        .limit(input.limit)
        .execute();
      return rows.map(toSession);
    },

    /**
     * Sessions newest first, paginated and filtered: `kind` is the session's
     * mode; `tool`, sessions with an invocation of that tool; `search`, a
     * case-insensitive substring of the id, the mode or a thought's content.
     */
    async search(input: {
      limit: number;
      offset: number;
      kind?: string;
      tool?: string;
      search?: string;
    }): Promise<Session[]> {
      let query = db.selectFrom("sessions").selectAll("sessions");
      if (input.kind !== undefined) query = query.where("sessions.mode", "=", input.kind);
      if (input.tool !== undefined) {
        const tool = input.tool;
        query = query.where(({ exists, selectFrom }) =>
          exists(
            selectFrom("invocations")
              .select("invocations.id")
              .whereRef("invocations.session_id", "=", "sessions.id")
              .where("invocations.tool", "=", tool),
          ),
        );
      }
      if (input.search !== undefined && input.search.trim() !== "") {
        // Escape LIKE wildcards so the text is matched literally, on SQLite and Postgres alike.
        const pattern = `%${input.search
          .trim()
          .toLowerCase()
          .replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
        query = query.where(({ or, eb, exists, selectFrom, fn }) =>
          or([
            eb(fn("lower", ["sessions.id"]), "like", sql<string>`${pattern} escape '\\'`),
            eb(fn("lower", ["sessions.mode"]), "like", sql<string>`${pattern} escape '\\'`),
            exists(
              selectFrom("thoughts")
                .select("thoughts.id")
                .whereRef("thoughts.session_id", "=", "sessions.id")
                .where((inner) =>
                  inner(inner.fn("lower", ["thoughts.content"]), "like", sql<string>`${pattern} escape '\\'`),
                ),
            ),
          ]),
        );
      }
      const rows = await query
        .orderBy("sessions.updated_at", "desc")
        .orderBy("sessions.id")
        .limit(input.limit)
        .offset(input.offset)
        .execute();
      return rows.map(toSession);
    },
  };
}
export type SessionRepository = ReturnType<typeof createSessionRepository>;

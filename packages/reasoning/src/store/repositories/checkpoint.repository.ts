import { DeliberateError } from "@deliberate/contracts";
import type { DatabaseExecutor } from "../tables.ts";
import { parseJsonObject, preparedQuery } from "@deliberate/store";
import type { CheckpointRow } from "../tables/checkpoint.table.ts";

export interface Checkpoint {
  id: string;
  session_id: string;
  name: string;
  description: string | null;
  thought_count: number;
  snapshot: Record<string, unknown>;
  created_at: string;
}

function toCheckpoint(row: CheckpointRow): Checkpoint {
  return { ...row, snapshot: parseJsonObject(row.snapshot, `checkpoint ${row.id}`) };
}

/** A session's checkpoints, oldest first (compiled once: listed on every `list`). */
const checkpointsOfSession = preparedQuery((db: DatabaseExecutor, sessionId: string) =>
  db
    .selectFrom("checkpoints")
    .selectAll()
    .where("session_id", "=", sessionId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc"),
);

/** A checkpoint without its snapshot (what `list` shows). */
export type CheckpointSummary = Omit<Checkpoint, "snapshot" | "session_id">;

/**
 * One page of a session's checkpoints without their snapshots, their total (a scalar subquery on the
 * session's index), and whether the session exists, in one statement (compiled once): no row when there is no such session (or the page starts past the end),
 * one row without a checkpoint when it has none.
 */
const checkpointSummariesOfSession = preparedQuery(
  (db: DatabaseExecutor, sessionId: string, limit: number, offset: number) =>
    db
      .selectFrom("sessions")
      .leftJoin("checkpoints", "checkpoints.session_id", "sessions.id")
      .select([
        "checkpoints.id",
        "checkpoints.name",
        "checkpoints.description",
        "checkpoints.thought_count",
        "checkpoints.created_at",
      ])
      // A scalar count, not `count(...) over ()`: the window function made SQLite materialise and re-scan the
      // joined rows, 4x the statement's cost (70 against 17 µs for a session with one checkpoint).
      .select((eb) =>
        eb
          .selectFrom("checkpoints as counted")
          .select(eb.fn.countAll<number>().as("count"))
          .whereRef("counted.session_id", "=", "sessions.id")
          .as("total"),
      )
      .where("sessions.id", "=", sessionId)
      .orderBy("checkpoints.created_at", "asc")
      .orderBy("checkpoints.id", "asc")
      .limit(limit)
      .offset(offset),
);

/** Saved session states for backtracking. */
export function createCheckpointRepository(db: DatabaseExecutor) {
  return {
    async create(input: Omit<Checkpoint, "created_at"> & { now: string }): Promise<Checkpoint> {
      const row: CheckpointRow = {
        id: input.id,
        session_id: input.session_id,
        name: input.name,
        description: input.description,
        thought_count: input.thought_count,
        snapshot: JSON.stringify(input.snapshot),
        created_at: input.now,
      };
      await db.insertInto("checkpoints").values(row).execute();
      return toCheckpoint(row);
    },

    async getInSession(sessionId: string, id: string): Promise<Checkpoint> {
      const row = await db
        .selectFrom("checkpoints")
        .selectAll()
        .where("id", "=", id)
        .where("session_id", "=", sessionId)
        .executeTakeFirst();
      if (!row) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Checkpoint not found in session ${sessionId}: ${id}`,
          issues: [{ field: "checkpoint_id", message: `no checkpoint '${id}' in session '${sessionId}'` }],
          hint: "Call reasoning_checkpoint with operation 'list' to see the session's checkpoints.",
        });
      }
      return toCheckpoint(row);
    },

    async listBySession(sessionId: string): Promise<Checkpoint[]> {
      const rows = await checkpointsOfSession(db, sessionId);
      return rows.map(toCheckpoint);
    },

    /**
     * A page of a session's checkpoints without their snapshots, oldest first, and how many it has in all;
     * undefined when there is no such session.
     */
    async listSummaries(
      sessionId: string,
      window: { limit: number; offset: number },
    ): Promise<{ summaries: CheckpointSummary[]; total: number } | undefined> {
      const rows = await checkpointSummariesOfSession(db, sessionId, window.limit, window.offset);
      if (rows.length === 0) {
        // No such session, or a page past the end: tell them apart.
        const counted = await db
          .selectFrom("sessions")
          .leftJoin("checkpoints", "checkpoints.session_id", "sessions.id")
          .select((eb) => eb.fn.count<number>("checkpoints.id").as("total"))
          .where("sessions.id", "=", sessionId)
          .groupBy("sessions.id")
          .executeTakeFirst();
        return counted === undefined ? undefined : { summaries: [], total: Number(counted.total) };
      }
      const summaries: CheckpointSummary[] = [];
      for (const row of rows) {
        if (row.id === null) continue;
        summaries.push({
          id: row.id,
          name: row.name as string,
          description: row.description,
          thought_count: Number(row.thought_count),
          created_at: row.created_at as string,
        });
      }
      return { summaries, total: Number(rows[0]?.total ?? 0) };
    },
  };
}
export type CheckpointRepository = ReturnType<typeof createCheckpointRepository>;

import { DeliberateError } from "@deliberate/base";
import type { Thought } from "@deliberate/contracts";
import { SqliteAdapter, sql } from "kysely";
import { runDeferrableWrite } from "../deferrable-write.ts";
import { type DirectSqlite, directSqliteOf } from "../direct-sqlite.ts";
import { dialectOf } from "../dialect.ts";
import type { DatabaseExecutor } from "../executor.ts";
import { parseJsonObject } from "../json-column.ts";
import { reservePositions } from "../sequences.ts";
import type { ThoughtRow } from "../tables/thought.table.ts";
import { createThoughtPages } from "./thought-pages.ts";
import { toThought } from "./thought-row.ts";

/**
 * A session's thoughts on SQLite as one JSON array of arrays, built by SQLite
 * and parsed at once: a session of 10,000 thoughts reads in about half the time
 * it takes the driver to make one object per row (exports read every thought).
 */
async function listAsJson(db: DatabaseExecutor, sessionId: string, activeOnly: boolean): Promise<Thought[]> {
  const result = await sql<{ rows: string | null }>`
    select json_group_array(json_array(id, session_id, branch_id, parent_id, mode, content, confidence, status, metadata, created_at)) as rows
    from (select * from thoughts where session_id = ${sessionId} ${activeOnly ? sql`and status = 'active'` : sql``} order by position)`.execute(
    db,
  );
  const rows = JSON.parse(result.rows[0]?.rows ?? "[]") as Array<
    [string, string, string | null, string | null, string, string, number | null, string, string, string]
  >;
  return rows.map(
    ([id, session_id, branch_id, parent_id, mode, content, confidence, status, metadata, created_at]) => ({
      id,
      session_id,
      branch_id,
      parent_id,
      mode,
      content,
      confidence,
      status: status === "superseded" ? "superseded" : "active",
      metadata: metadata === "{}" ? {} : parseJsonObject(metadata, `thought ${id}`),
      created_at,
    }),
  );
}

/** The nullable columns of an appended thought with their defaults. */
function appendedRow(input: NewThought) {
  return {
    branch_id: input.branch_id ?? null,
    parent_id: input.parent_id ?? null,
    mode: input.mode,
    content: input.content,
    confidence: input.confidence ?? null,
  };
}

export interface NewThought {
  id: string;
  session_id: string;
  branch_id?: string | null;
  parent_id?: string | null;
  mode: string;
  content: string;
  confidence?: number | null;
  metadata?: Record<string, unknown>;
  created_at: string;
}

/** How {@link createThoughtRepository}'s `append` may save work. */
export interface AppendOptions {
  /**
   * The session was created in this same transaction and has no thought yet:
   * this one takes position 0 (on SQLite without writing the position
   * counter). Given wrongly, the append fails on the session's unique
   * positions instead of writing a second thought at 0.
   */
  firstOfNewSession?: boolean;
}

const thoughtSequence = (sessionId: string) => ({
  scope: "thoughts",
  key: sessionId,
  table: "thoughts",
  keyColumn: "session_id",
  positionColumn: "position",
});

/** The thought a caller appended, as a read would return it (its metadata is what was stored: `metadata`, parsed). */
function appended(input: NewThought, metadata: string): Thought {
  const thought: Thought = {
    id: input.id,
    session_id: input.session_id,
    branch_id: input.branch_id ?? null,
    parent_id: input.parent_id ?? null,
    mode: input.mode,
    content: input.content,
    confidence: input.confidence ?? null,
    status: "active",
    metadata: {},
    created_at: input.created_at,
  };
  // Parsed when read: the stored text, as a read would return it (most callers only want the id).
  if (metadata !== "{}") {
    let parsed: Record<string, unknown> | undefined;
    Object.defineProperty(thought, "metadata", {
      enumerable: true,
      configurable: true,
      get: () => (parsed ??= JSON.parse(metadata) as Record<string, unknown>),
      set: (value: Record<string, unknown>) => {
        parsed = value;
      },
    });
  }
  return thought;
}

/** The columns of an appended thought after its position, in insert order. */
function appendValues(input: NewThought, metadata: string): unknown[] {
  return [
    input.branch_id ?? null,
    input.parent_id ?? null,
    input.mode,
    input.content,
    input.confidence ?? null,
    metadata,
    input.created_at,
  ];
}

/**
 * SQLite, in a transaction: the position reserved and the row inserted, two
 * prepared statements run synchronously. The first thought of a session made
 * in this transaction takes position 0 without the counter: the counter's
 * first use starts after the rows already there (`reservePositions`), so it
 * is written by the session's second append, and a session of one thought
 * (a decision's, a detection's) writes one row fewer.
 */
async function appendDirect(
  db: DatabaseExecutor,
  direct: DirectSqlite,
  input: NewThought,
  metadata: string,
  firstOfNewSession: boolean,
): Promise<void> {
  const position = firstOfNewSession ? 0 : await reservePositions(db, thoughtSequence(input.session_id));
  direct.run(
    "insert into thoughts (id, session_id, position, branch_id, parent_id, mode, content, confidence, status, metadata, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)",
    [input.id, input.session_id, position, ...appendValues(input, metadata)],
  );
}

/**
 * Postgres: the position reserved and the row inserted in one statement: the
 * counter's upsert is a data-modifying CTE the insert reads. Nothing is read
 * back, so in a transaction it waits for the COMMIT and goes with it
 * (`runDeferrableWrite`).
 */
const appendSql = `
    with reserved as (
      insert into deliberate_sequences (scope, key, next_position)
      values ('thoughts', $1, (select coalesce(max(position) + 1, 0) from thoughts where session_id = $1) + 1)
      on conflict (scope, key) do update set next_position = deliberate_sequences.next_position + 1
      returning next_position
    )
    insert into thoughts (id, session_id, position, branch_id, parent_id, mode, content, confidence, status, metadata, created_at)
    select $2, $1, next_position - 1, $3, $4, $5, $6, $7, 'active', $8, $9
    from reserved`;
function appendInOneStatement(db: DatabaseExecutor, input: NewThought, metadata: string): Promise<void> {
  return runDeferrableWrite(db, appendSql, [input.session_id, input.id, ...appendValues(input, metadata)]);
}

/** Thoughts: the recorded steps of a session, in order. */
export function createThoughtRepository(db: DatabaseExecutor) {
  const direct = directSqliteOf(db);
  const postgres = direct === undefined && dialectOf(db) === "postgres";
  return {
    ...createThoughtPages(db),
    /**
     * Appends at the end of the session. The position is reserved atomically
     * (`reservePositions`), so concurrent appends to one session, from any
     * number of processes, never collide.
     */
    async append(input: NewThought, options: AppendOptions = {}): Promise<Thought> {
      const metadata = JSON.stringify(input.metadata ?? {});
      if (direct !== undefined) await appendDirect(db, direct, input, metadata, options.firstOfNewSession === true);
      else if (postgres) await appendInOneStatement(db, input, metadata);
      else {
        const position = await reservePositions(db, thoughtSequence(input.session_id));
        const row: ThoughtRow = {
          id: input.id,
          session_id: input.session_id,
          position,
          ...appendedRow(input),
          status: "active",
          metadata,
          created_at: input.created_at,
        };
        await db.insertInto("thoughts").values(row).execute();
      }
      return appended(input, metadata);
    },

    async find(id: string): Promise<Thought | undefined> {
      const row =
        direct !== undefined
          ? direct.get<ThoughtRow>("select * from thoughts where id = ?", [id])
          : await db.selectFrom("thoughts").selectAll().where("id", "=", id).executeTakeFirst();
      return row ? toThought(row) : undefined;
    },

    async get(id: string): Promise<Thought> {
      const thought = await this.find(id);
      if (!thought) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Thought not found: ${id}`,
          issues: [{ field: "thought_id", message: `no thought with id '${id}'` }],
          hint: "Pass a thought_id returned by an earlier call.",
        });
      }
      return thought;
    },

    /** Every thought of a session in order, including superseded ones unless `activeOnly`. */
    async listBySession(sessionId: string, options: { activeOnly?: boolean } = {}): Promise<Thought[]> {
      if (db.getExecutor().adapter instanceof SqliteAdapter)
        return listAsJson(db, sessionId, options.activeOnly === true);
      let query = db.selectFrom("thoughts").selectAll().where("session_id", "=", sessionId);
      if (options.activeOnly) query = query.where("status", "=", "active");
      const rows = await query.orderBy("position", "asc").execute();
      return rows.map(toThought);
    },

    /** The newest `limit` active thoughts, oldest first (the context fed to the next prompt). */
    async recent(sessionId: string, limit: number): Promise<Thought[]> {
      if (direct !== undefined) {
        const rows = direct.all<ThoughtRow>(
          "select * from thoughts where session_id = ? and status = 'active' order by position desc limit ?",
          [sessionId, limit],
        );
        return rows.reverse().map(toThought);
      }
      const rows = await db
        .selectFrom("thoughts")
        .selectAll()
        .where("session_id", "=", sessionId)
        .where("status", "=", "active")
        .orderBy("position", "desc")
        .limit(limit)
        .execute();
      return rows.reverse().map(toThought);
    },

    async count(sessionId: string, options: { activeOnly?: boolean } = {}): Promise<number> {
      if (direct !== undefined) {
        const text = options.activeOnly
          ? "select count(*) as count from thoughts where session_id = ? and status = 'active'"
          : "select count(*) as count from thoughts where session_id = ?";
        return Number(direct.get<{ count: number }>(text, [sessionId])?.count ?? 0);
      }
      let query = db
        .selectFrom("thoughts")
        .select((expression) => expression.fn.countAll().as("count"))
        .where("session_id", "=", sessionId);
      if (options.activeOnly) query = query.where("status", "=", "active");
      const row = await query.executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** Sets aside (never deletes) active thoughts not in `keepIds`; returns how many. */
    async supersedeExcept(sessionId: string, keepIds: readonly string[]): Promise<number> {
      let query = db
        .updateTable("thoughts")
        .set({ status: "superseded" })
        .where("session_id", "=", sessionId)
        .where("status", "=", "active");
      if (keepIds.length > 0) query = query.where("id", "not in", keepIds);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Makes the given thoughts active again (a restore brings back what the checkpoint held). */
    async reactivate(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db.updateTable("thoughts").set({ status: "active" }).where("id", "in", ids).execute();
    },
  };
}
export type ThoughtRepository = ReturnType<typeof createThoughtRepository>;

import type { Thought } from "@deliberate/contracts";
import { SqliteAdapter, sql } from "kysely";
import type { DatabaseExecutor } from "../executor.ts";
import { parseJsonObject } from "../json-column.ts";
import { toThought } from "./thought-row.ts";

/** How many thoughts a session has and the highest position among them (null when it has none). */
export interface ThoughtExtent {
  total: number;
  lastPosition: number | null;
}

/** Thoughts `[offset, offset + limit)` of a session in order, counted from 0. */
export interface ThoughtWindow {
  offset: number;
  limit: number;
}

/** One window of a session's thoughts and how many it has in all. */
export interface ThoughtPage {
  thoughts: Thought[];
  total: number;
}

/** The next thoughts after a position, up to a bound (a keyset page). */
export interface ThoughtsAfter {
  /** Start after this position (exclusive); null starts at the first thought. */
  afterPosition: number | null;
  /** Stop at this position (inclusive): an export fixes it when it starts, so appends made meanwhile are not half in it. */
  throughPosition: number;
  limit: number;
}

/** A keyset page: its thoughts and the position of its last one (null when empty), where the next page starts after. */
export interface PositionedThoughts {
  thoughts: Thought[];
  lastPosition: number | null;
}

interface RowRange {
  from: number;
  through: number;
  limit: number;
  skip: number;
}

type ThoughtArray = [
  string,
  string,
  string | null,
  string | null,
  string,
  string,
  number | null,
  string,
  string,
  string,
  number,
];

/**
 * Rows `position` in [from, through], in order, `skip` skipped, at most `limit`.
 * On SQLite one JSON array built by SQLite and parsed at once (about half the
 * time of one driver object per row); on Postgres the rows as they come.
 */
async function readRange(db: DatabaseExecutor, sessionId: string, range: RowRange): Promise<PositionedThoughts> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    const result = await sql<{ rows: string | null }>`
      select json_group_array(json_array(id, session_id, branch_id, parent_id, mode, content, confidence, status, metadata, created_at, position)) as rows
      from (select * from thoughts where session_id = ${sessionId} and position >= ${range.from} and position <= ${range.through}
            order by position limit ${range.limit} offset ${range.skip})`.execute(db);
    const rows = JSON.parse(result.rows[0]?.rows ?? "[]") as ThoughtArray[];
    const thoughts = rows.map(
      ([id, session_id, branch_id, parent_id, mode, content, confidence, status, metadata, created_at]) => ({
        id,
        session_id,
        branch_id,
        parent_id,
        mode,
        content,
        confidence,
        status: status === "superseded" ? ("superseded" as const) : ("active" as const),
        metadata: metadata === "{}" ? {} : parseJsonObject(metadata, `thought ${id}`),
        created_at,
      }),
    );
    return { thoughts, lastPosition: rows.at(-1)?.[10] ?? null };
  }
  const rows = await db
    .selectFrom("thoughts")
    .selectAll()
    .where("session_id", "=", sessionId)
    .where("position", ">=", range.from)
    .where("position", "<=", range.through)
    .orderBy("position", "asc")
    .limit(range.limit)
    .offset(range.skip)
    .execute();
  return { thoughts: rows.map(toThought), lastPosition: rows.at(-1)?.position ?? null };
}

/**
 * Paged reads of a session's thoughts that touch only the page's rows: the
 * size from `thought_counts` (kept by triggers) and the highest position from
 * the (session_id, position) index, both O(log n), then the page by position.
 */
export function createThoughtPages(db: DatabaseExecutor) {
  const pages = {
    /** The session's thought count and highest position, read in one statement (one snapshot on Postgres). */
    async extent(sessionId: string): Promise<ThoughtExtent> {
      const result = await sql<{ total: number | string | null; last_position: number | string | null }>`
        select (select thought_count from thought_counts where session_id = ${sessionId}) as total,
               (select max(position) from thoughts where session_id = ${sessionId}) as last_position`.execute(db);
      const row = result.rows[0];
      const lastPosition =
        row?.last_position === null || row?.last_position === undefined ? null : Number(row.last_position);
      let total = row?.total === null || row?.total === undefined ? 0 : Number(row.total);
      if (lastPosition !== null && total === 0) {
        // Rows without their count (written past the triggers): counted the slow way rather than reported empty.
        const counted = await db
          .selectFrom("thoughts")
          .select((expression) => expression.fn.countAll().as("count"))
          .where("session_id", "=", sessionId)
          .executeTakeFirstOrThrow();
        total = Number(counted.count);
      }
      return { total, lastPosition };
    },

    /**
     * Thoughts `[offset, offset + limit)` in order (superseded ones included, as in
     * `listBySession`) and the total. When positions are 0..n-1 (always, unless a write
     * outside a transaction failed) the window is a range of positions; otherwise rows are skipped.
     */
    async window(sessionId: string, window: ThoughtWindow): Promise<ThoughtPage> {
      const { total, lastPosition } = await pages.extent(sessionId);
      if (lastPosition === null || window.offset >= total || window.limit <= 0) return { thoughts: [], total };
      const dense = lastPosition === total - 1;
      const range = dense
        ? {
            from: window.offset,
            through: Math.min(window.offset + window.limit - 1, lastPosition),
            limit: window.limit,
            skip: 0,
          }
        : { from: 0, through: lastPosition, limit: window.limit, skip: window.offset };
      const { thoughts } = await readRange(db, sessionId, range);
      return { thoughts, total };
    },

    /** The next `limit` thoughts after `afterPosition`, through `throughPosition` (a keyset page, for exports). */
    after(sessionId: string, page: ThoughtsAfter): Promise<PositionedThoughts> {
      const from = page.afterPosition === null ? 0 : page.afterPosition + 1;
      if (from > page.throughPosition || page.limit <= 0) return Promise.resolve({ thoughts: [], lastPosition: null });
      return readRange(db, sessionId, { from, through: page.throughPosition, limit: page.limit, skip: 0 });
    },
  };
  return pages;
}
export type ThoughtPages = ReturnType<typeof createThoughtPages>;

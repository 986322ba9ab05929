import { sql } from "kysely";
import type { DatabaseExecutor } from "../tables.ts";

/** The count of a client's current window after one more request. */
export interface RateLimitCount {
  count: number;
  /** When the window started (epoch milliseconds). */
  windowStartMs: number;
}

/**
 * Fixed-window request counters in the database, so every replica counts
 * against the same limit. Windows are aligned to multiples of the window
 * length (epoch time), so replicas agree on when one starts.
 */
export function createRateLimitRepository(db: DatabaseExecutor) {
  return {
    /** Counts one request of `key` at `nowMs` in one atomic upsert; returns the window's count so far. */
    async hit(input: { key: string; windowMs: number; nowMs: number }): Promise<RateLimitCount> {
      const windowStartMs = Math.floor(input.nowMs / input.windowMs) * input.windowMs;
      const windowStart = new Date(windowStartMs).toISOString();
      const result = await sql<{ count: number }>`
        insert into rate_limits (key, window_start, count) values (${input.key}, ${windowStart}, 1)
        on conflict (key) do update set
          count = case when rate_limits.window_start = excluded.window_start then rate_limits.count + 1 else 1 end,
          window_start = excluded.window_start
        returning count`.execute(db);
      return { count: Number(result.rows[0]?.count ?? 1), windowStartMs };
    },

    /** Deletes counters of windows that started before `before` (ISO); returns how many. */
    async sweep(before: string): Promise<number> {
      const result = await db.deleteFrom("rate_limits").where("window_start", "<", before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
export type RateLimitRepository = ReturnType<typeof createRateLimitRepository>;

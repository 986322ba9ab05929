import type { Selectable } from "kysely";

/** `rate_limits`: one fixed-window request counter per client key, shared by the replicas. */
export interface RateLimitTable {
  /** The client's key (its address, as the rate limiter sees it). */
  key: string;
  /** Start of the current window, aligned to the window length so replicas agree. */
  window_start: string;
  /** Requests counted in that window. */
  count: number;
}
export type RateLimitRow = Selectable<RateLimitTable>;

import type { Selectable } from "kysely";

/** How many thoughts a session has; written only by the triggers on `thoughts` (migration 2026-11-27T2000). */
export interface ThoughtCountTable {
  session_id: string;
  thought_count: number;
}
export type ThoughtCountRow = Selectable<ThoughtCountTable>;

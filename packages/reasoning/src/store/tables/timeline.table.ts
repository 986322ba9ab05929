import type { Insertable, Selectable } from "kysely";

export interface TimelineTable {
  id: string;
  session_id: string;
  /** The branch new branches fork from by default ("the current point"). */
  current_branch_id: string;
  /** JSON object supplied at create. */
  metadata: string;
  created_at: string;
  updated_at: string;
}
export type TimelineRow = Selectable<TimelineTable>;
export type NewTimelineRow = Insertable<TimelineTable>;

import type { Insertable, Selectable } from "kysely";

/** One row per merge: what was combined, how, and the target's content before (so nothing is lost). */
export interface TimelineMergeTable {
  id: string;
  timeline_id: string;
  source_branch_id: string;
  target_branch_id: string;
  /** "synthesize" | "prefer_source" | "prefer_target" | "interleave" */
  strategy: string;
  target_content_before: string;
  merged_content: string;
  /** JSON array of conflicts the merge resolved. */
  conflicts: string;
  created_at: string;
}
export type TimelineMergeRow = Selectable<TimelineMergeTable>;
export type NewTimelineMergeRow = Insertable<TimelineMergeTable>;

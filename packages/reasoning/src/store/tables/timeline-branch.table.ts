import type { Insertable, Selectable } from "kysely";

export interface TimelineBranchTable {
  id: string;
  timeline_id: string;
  parent_branch_id: string | null;
  /** Order within the timeline (0-based), assigned on insert. */
  position: number;
  label: string;
  content: string;
  /** "active" | "merged" */
  status: string;
  /** Set when this branch was merged into another. */
  merged_into_id: string | null;
  /** JSON object. */
  metadata: string;
  created_at: string;
  updated_at: string;
}
export type TimelineBranchRow = Selectable<TimelineBranchTable>;
export type NewTimelineBranchRow = Insertable<TimelineBranchTable>;

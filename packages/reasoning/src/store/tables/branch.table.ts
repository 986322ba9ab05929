import type { Insertable, Selectable, Updateable } from "kysely";

export interface BranchTable {
  id: string;
  session_id: string;
  parent_branch_id: string | null;
  position: number;
  content: string;
  score: number;
  /** "active" | "completed" | "abandoned" */
  status: string;
  created_at: string;
  updated_at: string;
}
export type BranchRow = Selectable<BranchTable>;
export type NewBranchRow = Insertable<BranchTable>;
export type BranchUpdate = Updateable<BranchTable>;

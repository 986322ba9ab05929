import type { Insertable, Selectable } from "kysely";

export interface MctsNodeTable {
  id: string;
  session_id: string;
  /** The search tree's root (a root's is its own id). */
  root_id: string;
  parent_id: string | null;
  /** Order within the session (0-based), assigned on insert. */
  position: number;
  /** Levels below the tree's root. */
  depth: number;
  content: string;
  visits: number;
  /** Sum of the values backed up through this node (Q). */
  total_value: number;
  /** The model's own evaluation of this node (0..1); null if never evaluated. */
  evaluation: number | null;
  /** 1 when the model judged the step a conclusion (never expanded). */
  is_terminal: number;
  /** JSON object. */
  metadata: string;
  created_at: string;
  updated_at: string;
}
export type MctsNodeRow = Selectable<MctsNodeTable>;
export type NewMctsNodeRow = Insertable<MctsNodeTable>;

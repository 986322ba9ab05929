import type { Insertable, Selectable, Updateable } from "kysely";

export interface ThoughtTable {
  id: string;
  session_id: string;
  /** Order within the session (0-based), assigned on insert. */
  position: number;
  branch_id: string | null;
  parent_id: string | null;
  mode: string;
  content: string;
  confidence: number | null;
  /** "active" or "superseded" (set aside by a checkpoint restore; never deleted). */
  status: string;
  /** JSON object. */
  metadata: string;
  created_at: string;
}
export type ThoughtRow = Selectable<ThoughtTable>;
export type NewThoughtRow = Insertable<ThoughtTable>;
export type ThoughtUpdate = Updateable<ThoughtTable>;

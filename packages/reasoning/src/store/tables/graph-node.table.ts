import type { Insertable, Selectable } from "kysely";

export interface GraphNodeTable {
  id: string;
  session_id: string;
  /** Order within the session's graph (0-based), assigned on insert. */
  position: number;
  /** The node this one was derived from; null for the root. */
  parent_id: string | null;
  /** "root" | "continuation" | "aggregation" | "refinement" */
  kind: string;
  content: string;
  depth: number;
  /** 0..1, the mean of the criteria; null until scored. */
  score: number | null;
  /** JSON object of the criteria scores, or null until scored. */
  criteria: string | null;
  /** "active" | "pruned" (pruned nodes are kept, never deleted). */
  status: string;
  /** 1 or 0. */
  is_terminal: number;
  /** JSON object. */
  metadata: string;
  created_at: string;
  updated_at: string;
}
export type GraphNodeRow = Selectable<GraphNodeTable>;
export type NewGraphNodeRow = Insertable<GraphNodeTable>;

import type { Insertable, Selectable } from "kysely";

/** One Graph-of-Thoughts per session: its root and its stored limits. */
export interface GraphTable {
  session_id: string;
  root_node_id: string;
  problem: string | null;
  max_nodes: number;
  max_depth: number;
  prune_threshold: number;
  created_at: string;
  updated_at: string;
}
export type GraphRow = Selectable<GraphTable>;
export type NewGraphRow = Insertable<GraphTable>;

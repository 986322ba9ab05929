import type { Insertable, Selectable } from "kysely";

export interface GraphEdgeTable {
  id: string;
  session_id: string;
  from_node_id: string;
  to_node_id: string;
  /** "continuation" | "aggregation" | "refinement" */
  kind: string;
  created_at: string;
}
export type GraphEdgeRow = Selectable<GraphEdgeTable>;
export type NewGraphEdgeRow = Insertable<GraphEdgeTable>;

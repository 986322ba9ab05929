import type { Selectable } from "kysely";

/** An entity (node); unique per session on its normalised name. */
export interface KnowledgeGraphEntityTable {
  id: string;
  session_id: string;
  /** Insertion order within the session. */
  position: number;
  name: string;
  normalized_name: string;
  type: string;
  /** JSON array of strings. */
  observations: string;
  confidence: number;
  validity: string;
  provenance_kind: string;
  provenance_task_id: string;
  provenance_step: string | null;
  provenance_reference: string | null;
  created_at: string;
  updated_at: string;
}

export type KnowledgeGraphEntityRow = Selectable<KnowledgeGraphEntityTable>;

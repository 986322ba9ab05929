import type { Selectable } from "kysely";

/** A relation (edge); unique per session on (subject, predicate, object). */
export interface KnowledgeGraphRelationTable {
  id: string;
  session_id: string;
  position: number;
  subject_id: string;
  predicate: string;
  object_id: string;
  confidence: number;
  validity: string;
  provenance_kind: string;
  provenance_task_id: string;
  provenance_step: string | null;
  provenance_reference: string | null;
  /** JSON `{ rule, premises: [{ subject, predicate, object }] }` for deduced relations, else null. */
  derivation: string | null;
  /** asserted | derived | hypothetical | derived_from_hypothesis (null only before the migration's backfill). */
  status: string | null;
  /** JSON array of the triples this relation conflicts with. */
  conflicts_with: string;
  created_at: string;
  updated_at: string;
}

export type KnowledgeGraphRelationRow = Selectable<KnowledgeGraphRelationTable>;

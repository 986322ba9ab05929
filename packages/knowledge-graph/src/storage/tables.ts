import type { Selectable } from "kysely";

/** One knowledge-graph session: lifecycle, revision and what it waits for. */
export interface KnowledgeGraphSessionTable {
  /** Also the id of the shared `sessions` row (exports and the viewer list it there). */
  session_id: string;
  first_task_id: string;
  goal_query: string;
  /** "active" | "pending_tool_call" | "pending_user_input" | "ended" | "expired" */
  state: string;
  /** Incremented by every call that changes the session; a signed state names the revision it was issued at. */
  revision: number;
  /** JSON of what a pending session waits for and how to continue, or null. */
  pending: string | null;
  /** Calls made on the session (executeTask). */
  calls: number;
  /** JSON array of the session's functional predicates (at most one object per subject), or null. */
  functional_predicates: string | null;
  /** JSON `{ rules, covered }`: the rules (by `ruleKey`) the graph's first `covered` relations are closed under, or null. */
  closure: string | null;
  created_at: string;
  updated_at: string;
  last_active_at: string;
  closed_at: string | null;
}

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

/** Named secrets of the module (the session-state signing key). */
export interface KnowledgeGraphSecretTable {
  name: string;
  value: string;
  created_at: string;
}

/** The module's tables, plus the shared `sessions` table it registers its sessions in. */
export interface KnowledgeGraphDatabase {
  knowledge_graph_sessions: KnowledgeGraphSessionTable;
  knowledge_graph_entities: KnowledgeGraphEntityTable;
  knowledge_graph_relations: KnowledgeGraphRelationTable;
  knowledge_graph_secrets: KnowledgeGraphSecretTable;
  sessions: { id: string; mode: string; active_branch_id: string | null; created_at: string; updated_at: string };
}

export type KnowledgeGraphSessionRow = Selectable<KnowledgeGraphSessionTable>;
export type KnowledgeGraphEntityRow = Selectable<KnowledgeGraphEntityTable>;
export type KnowledgeGraphRelationRow = Selectable<KnowledgeGraphRelationTable>;

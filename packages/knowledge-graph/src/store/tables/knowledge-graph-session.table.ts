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

export type KnowledgeGraphSessionRow = Selectable<KnowledgeGraphSessionTable>;

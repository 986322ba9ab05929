/** Which caller a session is bound to (it may continue or end it by reasoningSessionId alone). */
export interface KnowledgeGraphSessionOwnerTable {
  session_id: string;
  /** The caller identity the surface vouched for when the session was created (opaque). */
  owner: string;
  created_at: string;
}

/** A rule the host gave as data (`contextData.rules`), kept with its session and applied in code on every call. */
export interface KnowledgeGraphRuleTable {
  session_id: string;
  /** Unique per session: a rule given again under its name replaces the earlier one. */
  name: string;
  /** JSON `{ name, conditions: [atom], conclusions: [atom] }` with entity names as given. */
  rule: string;
  created_at: string;
  updated_at: string;
}

/** The tables of session bindings and host rules. */
export interface SessionBindingDatabase {
  knowledge_graph_session_owners: KnowledgeGraphSessionOwnerTable;
  knowledge_graph_rules: KnowledgeGraphRuleTable;
}

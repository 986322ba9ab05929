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

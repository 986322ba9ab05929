import type { KnowledgeGraphEntityTable } from "./tables/knowledge-graph-entity.table.ts";
import type { KnowledgeGraphRelationTable } from "./tables/knowledge-graph-relation.table.ts";
import type { KnowledgeGraphRuleTable } from "./tables/knowledge-graph-rule.table.ts";
import type { KnowledgeGraphSecretTable } from "./tables/knowledge-graph-secret.table.ts";
import type { KnowledgeGraphSessionOwnerTable } from "./tables/knowledge-graph-session-owner.table.ts";
import type { KnowledgeGraphSessionTable } from "./tables/knowledge-graph-session.table.ts";

/** The module's tables, plus the shared `sessions` table it registers its sessions in. */
export interface KnowledgeGraphDatabase {
  knowledge_graph_sessions: KnowledgeGraphSessionTable;
  knowledge_graph_entities: KnowledgeGraphEntityTable;
  knowledge_graph_relations: KnowledgeGraphRelationTable;
  knowledge_graph_secrets: KnowledgeGraphSecretTable;
  sessions: { id: string; mode: string; active_branch_id: string | null; created_at: string; updated_at: string };
}

/** The tables of session bindings and host rules. */
export interface SessionBindingDatabase {
  knowledge_graph_session_owners: KnowledgeGraphSessionOwnerTable;
  knowledge_graph_rules: KnowledgeGraphRuleTable;
}

/** Named secrets of the module (the session-state signing key). */
export interface KnowledgeGraphSecretTable {
  name: string;
  value: string;
  created_at: string;
}

/** Which caller a session is bound to (it may continue or end it by reasoningSessionId alone). */
export interface KnowledgeGraphSessionOwnerTable {
  session_id: string;
  /** The caller identity the surface vouched for when the session was created (opaque). */
  owner: string;
  created_at: string;
}

/**
 * What the viewer reads, as plain structural types: a service passes its own
 * functions (the engine's readSession, the store's invocations) and their
 * richer types fit these without conversion.
 */

/** One session as listed (the contracts' `Session` fits). */
export interface ViewerSession {
  id: string;
  /** The mode (kind) that created the session, e.g. `graph`. */
  mode: string;
  active_branch_id?: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * A session with everything recorded in it: `session` plus one property per
 * section (`thoughts`, `branches`, `checkpoints`, `graph`, `timelines`,
 * `search_nodes`, and module sections such as `dialog` or `knowledge_graph`).
 * The engine's `SessionRecord` fits.
 */
export interface ViewerSessionRecord {
  session: ViewerSession;
}

/** One invocation row of a session (the contracts' `Invocation` fits). */
export interface ViewerInvocation {
  id: string;
  tool: string;
  operation: string | null;
  provider: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
  latency_ms: number;
  success: boolean;
  error_code: string | null;
  quality: number | null;
  created_at: string;
}

/** A page of the session list, newest first. */
export interface ViewerSessionQuery {
  limit: number;
  offset: number;
  /** Only sessions with an invocation of this tool, e.g. `reasoning_graph`. */
  tool?: string;
  /** Only sessions of this kind (`session.mode`), e.g. `graph`. */
  kind?: string;
  /** Free text, matched by the service (ids, kinds, thought content…). */
  search?: string;
}

/** The functions a service hands to the viewer. All are read-only. */
export interface ViewerDataSource {
  /** Sessions newest first (by `updated_at`), filtered and paginated. */
  listSessions(query: ViewerSessionQuery): Promise<readonly ViewerSession[]>;
  /** One session with its sections; rejects with an error whose `code` is `NOT_FOUND` when unknown. */
  readSession(sessionId: string): Promise<ViewerSessionRecord>;
  /** The session's invocation rows. */
  listInvocations(sessionId: string): Promise<readonly ViewerInvocation[]>;
  /**
   * Optional cheap version of a session (e.g. `updated_at` plus row counts)
   * that changes whenever its content does; the live stream polls it and
   * reads the whole session only when it changes. Without it the stream
   * polls `readSession` and `listInvocations` and compares their content.
   */
  sessionVersion?(sessionId: string): Promise<string>;
}

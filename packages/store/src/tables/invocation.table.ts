import type { Generated, Insertable, Selectable } from "kysely";

export interface InvocationTable {
  id: string;
  tool: string;
  operation: string | null;
  session_id: string | null;
  provider: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  model_calls: number;
  latency_ms: number;
  /** 1 or 0 (portable across SQLite and Postgres). */
  success: number;
  error_code: string | null;
  error_message: string | null;
  quality: number | null;
  /** 1 for a call that ran at once; host-executed calls: every replay, the final one included. */
  rounds: Generated<number>;
  /** When the call finished and was recorded. */
  created_at: string;
  /** When the call started (its first round, for host-executed calls); null only on rows written without it. */
  started_at: string | null;
}
export type InvocationRow = Selectable<InvocationTable>;
export type NewInvocationRow = Insertable<InvocationTable>;

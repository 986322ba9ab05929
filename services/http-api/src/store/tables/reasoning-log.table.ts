import type { Insertable, Selectable } from "kysely";

/** `reasoning_logs`: structured telemetry events of the HTTP API (one row per event). */
export interface ReasoningLogTable {
  id: string;
  created_at: string;
  /** debug | info | warn | error */
  level: string;
  /** Dotted event name, e.g. `intent.decided`, `job.completed`, `http.request`. */
  event: string;
  request_id: string | null;
  intent_id: string | null;
  job_id: string | null;
  session_id: string | null;
  correlation_id: string | null;
  duration_ms: number | null;
  /** JSON: the rest of the event. */
  data: string;
}
export type ReasoningLogRow = Selectable<ReasoningLogTable>;
export type NewReasoningLogRow = Insertable<ReasoningLogTable>;

import type { Insertable, Selectable, Updateable } from "kysely";

/** One dialog session; its id is also the row's id in the shared `sessions` table. */
export interface DialogSessionTable {
  session_id: string;
  thread_id: string;
  topic: string;
  context: string | null;
  /** The preset whose rubric and instructions apply. */
  mode: string;
  /** JSON: the plan (steps of turns). */
  plan: string;
  max_iterations: number;
  quality_threshold: number;
  token_budget: number | null;
  wall_time_budget_seconds: number | null;
  context_budget_tokens: number;
  idle_timeout_seconds: number;
  /** started | in_progress | completed | error. */
  status: string;
  /** threshold_met | max_iterations | budget_exhausted, once completed. */
  stop_reason: string | null;
  completed_iterations: number;
  /** The reviewers' last score; null before the first exchange. */
  current_quality: number | null;
  tokens_used: number;
  /** Why the last exchange failed (status error). */
  error: string | null;
  created_at: string;
  /** Last activity. */
  updated_at: string;
}
export type DialogSessionRow = Selectable<DialogSessionTable>;
export type NewDialogSessionRow = Insertable<DialogSessionTable>;
export type DialogSessionUpdate = Updateable<DialogSessionTable>;

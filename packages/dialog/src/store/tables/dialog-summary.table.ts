import type { Selectable } from "kysely";

/** A summary of a session's early iterations, used in later prompts instead of them. */
export interface DialogSummaryTable {
  session_id: string;
  /** The last iteration the summary covers (it covers every earlier one). */
  through_iteration: number;
  /** The iteration whose exchange made the summary. */
  made_in_iteration: number;
  content: string;
  input_tokens: number;
  output_tokens: number;
  tokens_estimated: number;
  model: string | null;
  created_at: string;
}
export type DialogSummaryRow = Selectable<DialogSummaryTable>;

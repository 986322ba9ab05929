import type { Selectable } from "kysely";

/** The outcome and quality of one iteration. */
export interface DialogIterationTable {
  session_id: string;
  iteration: number;
  /** The reviewed document of the iteration. */
  document: string;
  reviewer_score: number;
  self_assessment: number;
  /** JSON: mean score per criterion. */
  criteria: string;
  /** JSON: each final reviewer's score and criteria. */
  reviews: string;
  /** JSON: the final step's directives, for the next iteration. */
  directives: string;
  tokens: number;
  /** The exchange status it ended with. */
  status: string;
  /** Who gave the reviewer scores: server_model, host or sampling; null on rows recorded before it was kept. */
  graded_by: string | null;
  created_at: string;
}
export type DialogIterationRow = Selectable<DialogIterationTable>;

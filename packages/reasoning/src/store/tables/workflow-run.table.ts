import type { Insertable, Selectable } from "kysely";

/** One run of a guided workflow (the state behind a state_id). */
export interface WorkflowRunTable {
  id: string;
  workflow: string;
  /** "in_progress" | "complete" */
  status: string;
  /** The step waiting for a thought; null once complete. */
  current_step: string | null;
  /** JSON: the workflow's inputs. */
  inputs: string;
  /** JSON: saved answers by each step's saveAs key. */
  answers: string;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}
export type WorkflowRunRow = Selectable<WorkflowRunTable>;
export type NewWorkflowRunRow = Insertable<WorkflowRunTable>;

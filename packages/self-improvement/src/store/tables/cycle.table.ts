import type { Selectable } from "kysely";

/** One run of the loop and how it ended. */
export interface CycleTable {
  id: string;
  started_at: string;
  finished_at: string;
  holder: string;
  outcome: string;
  reason: string;
  diagnosis_id: string | null;
  action_id: string | null;
  details_json: string;
}
export type CycleRow = Selectable<CycleTable>;

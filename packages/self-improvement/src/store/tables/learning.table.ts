import type { Selectable } from "kysely";

/** A lesson: the measured outcome of an action, or an operator's verdict, fed to later analyses. */
export interface LearningTable {
  id: string;
  created_at: string;
  action_id: string | null;
  diagnosis_id: string | null;
  tool: string;
  scope: string;
  setting: string;
  direction: string;
  verdict: string;
  reward: number | null;
  confidence: number | null;
  breakdown_json: string;
  lessons_json: string;
}
export type LearningRow = Selectable<LearningTable>;

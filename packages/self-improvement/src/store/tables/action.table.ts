import type { Selectable } from "kysely";

/** An applied change of one setting, with what it replaced (so it can be reversed) and how it was judged. */
export interface ActionTable {
  id: string;
  diagnosis_id: string;
  scope: string;
  setting: string;
  direction: string;
  from_value: number;
  to_value: number;
  /** The override in place before (null: none, the configured value applied). */
  previous_override: number | null;
  previous_action_id: string | null;
  tools_json: string;
  metric: string;
  /** Start of the calls measured before the action (the window it was diagnosed on). */
  before_from: string;
  applied_at: string;
  applied_by: string;
  status: string;
  status_reason: string | null;
  evaluated_at: string | null;
  rolled_back_at: string | null;
  rolled_back_by: string | null;
  reward: number | null;
  confidence: number | null;
  pre_metrics_json: string;
  post_metrics_json: string | null;
}
export type ActionRow = Selectable<ActionTable>;

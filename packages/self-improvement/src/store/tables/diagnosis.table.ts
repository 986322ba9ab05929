import type { Selectable } from "kysely";

/** A diagnosis: a trigger, its suspected cause and the action suggested (or none). */
export interface DiagnosisTable {
  id: string;
  created_at: string;
  updated_at: string;
  tool: string;
  metric: string;
  severity: string;
  deviation_pct: number;
  trigger_json: string;
  description: string;
  suspected_cause: string | null;
  action_json: string;
  rationale: string | null;
  /** `model` or `rules`. */
  analyzer: string;
  rule: string | null;
  status: string;
  status_reason: string | null;
  action_id: string | null;
}
export type DiagnosisRow = Selectable<DiagnosisTable>;

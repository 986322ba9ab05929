import type { Selectable } from "kysely";

/** A setting in force at runtime, set by an action; restored at start. */
export interface OverrideTable {
  scope: string;
  setting: string;
  value: number;
  action_id: string | null;
  updated_at: string;
}
export type OverrideRow = Selectable<OverrideTable>;

import type { Insertable, Selectable } from "kysely";

export interface CheckpointTable {
  id: string;
  session_id: string;
  name: string;
  description: string | null;
  /** Number of thoughts in the session when the checkpoint was taken. */
  thought_count: number;
  /** JSON: the session state at the time (active branch, thought ids, branch statuses). */
  snapshot: string;
  created_at: string;
}
export type CheckpointRow = Selectable<CheckpointTable>;
export type NewCheckpointRow = Insertable<CheckpointTable>;

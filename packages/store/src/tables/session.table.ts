import type { Insertable, Selectable, Updateable } from "kysely";

export interface SessionTable {
  id: string;
  mode: string;
  active_branch_id: string | null;
  created_at: string;
  updated_at: string;
}
export type SessionRow = Selectable<SessionTable>;
export type NewSessionRow = Insertable<SessionTable>;
export type SessionUpdate = Updateable<SessionTable>;

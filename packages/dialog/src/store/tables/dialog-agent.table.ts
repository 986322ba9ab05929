import type { Selectable } from "kysely";

/** An agent of a session, in speaking order of the session's agent list. */
export interface DialogAgentTable {
  session_id: string;
  position: number;
  name: string;
  role: string;
  system_prompt: string;
  model: string | null;
  temperature: number | null;
  max_tokens: number | null;
}
export type DialogAgentRow = Selectable<DialogAgentTable>;

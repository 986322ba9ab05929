import type { Insertable, Selectable } from "kysely";

/** A model-backed call waiting for the calling agent's completions. */
export interface SuspendedCallTable {
  /** The resume token handed to the caller. */
  id: string;
  tool: string;
  /** JSON: the call's original arguments. */
  arguments: string;
  /** JSON: prompt id -> recorded answer, accumulated over rounds. */
  answers: string;
  /** JSON: the prompts of the current step (id, system, user, schema). */
  pending: string;
  rounds: number;
  created_at: string;
  updated_at: string;
  expires_at: string;
  /** While a submission replays the call: until when it holds it (a crashed holder's claim lapses). */
  claimed_until: string | null;
}
export type SuspendedCallRow = Selectable<SuspendedCallTable>;
export type NewSuspendedCallRow = Insertable<SuspendedCallTable>;

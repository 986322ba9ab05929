import type { Selectable } from "kysely";

/** One agent turn of one iteration. */
export interface DialogExchangeTable {
  id: string;
  session_id: string;
  iteration: number;
  /** Order within the iteration (plan order). */
  position: number;
  step: number;
  agent: string;
  /** initiator | responder. */
  role: string;
  /** produce | merge | review. */
  act: string;
  content: string;
  /** JSON: the agent's structured answer. */
  answer: string;
  input_tokens: number;
  output_tokens: number;
  /** 1 when the provider reported no usage and the figures are estimates. */
  tokens_estimated: number;
  model: string | null;
  /** analyzing | synthesizing | breakthrough. */
  state: string | null;
  created_at: string;
}
export type DialogExchangeRow = Selectable<DialogExchangeTable>;

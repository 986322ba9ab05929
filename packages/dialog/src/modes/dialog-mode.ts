import type { ModeDefinition } from "@deliberate/engine";
import { z } from "zod";

/** The dialog module's mode ids: one per act, plus the summariser for context overflow. */
export type DialogModeId = "dialog_producer" | "dialog_merger" | "dialog_reviewer" | "dialog_summariser";

/** A dialog mode: an engine mode whose id is one of the module's. */
export type DialogModeDefinition<Input, Output> = ModeDefinition<Input, Output> & { mode: DialogModeId };

/**
 * Non-blank text of at most `max` characters, trimmed. The JSON schema a model gets says
 * the same (a non-whitespace pattern and the length), so it is as strict as the validator.
 */
export function text(max: number) {
  return z.string().trim().max(max).regex(/\S/, "must not be blank");
}

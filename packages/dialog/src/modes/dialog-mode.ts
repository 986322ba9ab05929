import type { ModeDefinition, ModeSettings } from "@deliberate/engine";
import { z } from "zod";

/** The dialog module's mode ids: one per act, plus the summariser for context overflow. */
export type DialogModeId = "dialog_producer" | "dialog_merger" | "dialog_reviewer" | "dialog_summariser";

/** Default settings per mode (the module registers them); the service may override them per mode, agents per agent. */
export const dialogModeSettings: Readonly<Record<DialogModeId, ModeSettings>> = {
  dialog_producer: { temperature: 0.7, maxTokens: 4000 },
  dialog_merger: { temperature: 0.5, maxTokens: 4000 },
  dialog_reviewer: { temperature: 0.3, maxTokens: 1500 },
  dialog_summariser: { temperature: 0.3, maxTokens: 2000 },
};

/** A dialog mode: an engine mode whose id is one of the module's. */
export type DialogModeDefinition<Input, Output> = ModeDefinition<Input, Output> & { mode: DialogModeId };

/**
 * Non-blank text of at most `max` characters, trimmed. The JSON schema a model gets says
 * the same (a non-whitespace pattern and the length), so it is as strict as the validator.
 */
export function text(max: number) {
  return z.string().trim().max(max).regex(/\S/, "must not be blank");
}

import { z } from "zod";

/** The dialog module's mode ids: one per act, plus the summariser for context overflow. */
export type DialogModeId = "dialog_producer" | "dialog_merger" | "dialog_reviewer" | "dialog_summariser";

/** Model settings of one mode; an agent's temperature and maxTokens override them. */
export interface DialogModeSettings {
  temperature: number;
  maxTokens: number;
  timeoutMs?: number;
}

/** Default settings per mode; the service may override them per mode, agents per agent. */
export const dialogModeSettings: Readonly<Record<DialogModeId, DialogModeSettings>> = {
  dialog_producer: { temperature: 0.7, maxTokens: 4000 },
  dialog_merger: { temperature: 0.5, maxTokens: 4000 },
  dialog_reviewer: { temperature: 0.3, maxTokens: 1500 },
  dialog_summariser: { temperature: 0.3, maxTokens: 2000 },
};

/**
 * A dialog mode as data (the shape of the engine's modes): which settings apply,
 * the stable system prompt (the agent's persona and the act's rules), the
 * rendered user prompt and the output schema the answer is validated against.
 */
export interface DialogModeDefinition<Input, Output> {
  mode: DialogModeId;
  /** Name of the structured answer; also how fakes recognise the call. */
  name: string;
  description: string;
  system: string;
  prompt: (input: Input) => string;
  output: z.ZodType<Output>;
}

/**
 * Non-blank text of at most `max` characters, trimmed. The JSON schema a model gets says
 * the same (a non-whitespace pattern and the length), so it is as strict as the validator.
 */
export function text(max: number) {
  return z.string().trim().max(max).regex(/\S/, "must not be blank");
}

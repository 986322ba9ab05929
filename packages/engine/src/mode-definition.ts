import type { z } from "zod";

/**
 * A mode is data: what to ask, how the answer must look, and which settings
 * apply. One executor (`runMode`) runs any mode; algorithms live in handlers.
 */
export interface ModeDefinition<Input, Output> {
  /** Which mode's model settings and model id apply. */
  mode: string;
  /** Name of the structured answer (tool / json_schema name); also how fakes recognise the call. */
  name: string;
  /** What the answer is, for the provider's schema description. */
  description: string;
  /** The stable system prompt (cached by providers that support it). */
  system: string;
  /** Renders the user prompt from the input. */
  prompt: (input: Input) => string;
  /** What the model must return; validated, with one repair round, by the provider. */
  output: z.ZodType<Output>;
}

export function defineMode<Input, Output>(definition: ModeDefinition<Input, Output>): ModeDefinition<Input, Output> {
  return definition;
}

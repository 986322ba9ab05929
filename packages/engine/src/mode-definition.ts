import type { z } from "zod";
import type { ModeSettings } from "./mode-settings.ts";

/**
 * A mode id with its default model settings: what a module registers. A mode definition is one (it carries
 * `settings`); a mode whose definitions are built per call (their prompts depend on the input) declares the
 * shared part once, `{ mode, settings }`, spreads it into each definition and lists it in its module's `modes`.
 */
export interface ModeDeclaration {
  /** The mode id: which settings and model id apply (`ANTHROPIC_MODEL_<MODE>` works for any). */
  readonly mode: string;
  /** The mode's default model settings (configuration and runtime sources layer over them, read per call). */
  readonly settings: ModeSettings;
}

/**
 * A mode is data: what to ask, how the answer must look, and which settings
 * apply. One executor (`runMode`) runs any mode; algorithms live in handlers.
 */
export interface ModeDefinition<Input, Output> {
  /** Which mode's model settings and model id apply. */
  mode: string;
  /**
   * The mode's default model settings, declared with it. Several definitions may share one mode id (the steps
   * of one tool); those that declare settings must declare the same, and at least one must.
   */
  settings?: ModeSettings;
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

/** What a module's `modes` lists: declarations and definitions (only their `mode` and `settings` are read). */
export type ModeEntry = { readonly mode: string; readonly settings?: ModeSettings };

/**
 * The settings of each mode id a module's entries register, in first-listed order; throws naming the module
 * and the mode when two entries of one id declare different settings or none declares any.
 */
export function modeSettingsOf(moduleName: string, entries: readonly ModeEntry[]): Record<string, ModeSettings> {
  const settings: Record<string, ModeSettings> = {};
  const listed: string[] = [];
  for (const entry of entries) {
    if (!listed.includes(entry.mode)) listed.push(entry.mode);
    if (entry.settings === undefined) continue;
    const known = settings[entry.mode];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(entry.settings)) {
      throw new Error(
        `Mode '${entry.mode}' of module ${moduleName} is declared with two different settings: ${JSON.stringify(known)} and ${JSON.stringify(entry.settings)}`,
      );
    }
    settings[entry.mode] = entry.settings;
  }
  const missing = listed.filter((mode) => settings[mode] === undefined);
  if (missing.length > 0)
    throw new Error(
      `Mode '${missing[0]}' of module ${moduleName} has no settings: declare them on its definition (defineMode({ mode, settings, ... }))`,
    );
  return settings;
}

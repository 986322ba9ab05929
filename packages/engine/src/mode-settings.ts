import type { ThinkingEffort } from "@deliberate/providers";

/** Model settings of one mode (design §6 and §11.4). */
export interface ModeSettings {
  /** Sent to chat models only: reasoning models and Claude's current API refuse sampling parameters. */
  temperature: number;
  maxTokens: number;
  /**
   * How much the mode thinks, as a token budget: budget models (Claude Sonnet
   * 4.5, Haiku 4.5, Opus 4.5) get it as `budget_tokens`; effort models
   * (Claude Opus 4.6+, the 5 family, OpenAI reasoning models) the effort it
   * stands for (up to 2,048 low, 6,144 medium, 12,288 high, above xhigh),
   * with the answer's cap raised to leave room for the thinking.
   */
  thinkingBudget?: number;
  /** An explicit effort (`low` ... `max`) for effort models; wins over the budget's. */
  effort?: ThinkingEffort;
  timeoutMs?: number;
  /**
   * Stream the answer and report its progress ("generating <mode>: N tokens").
   * Unset: the provider streams only answers that may take long.
   */
  stream?: boolean;
}

/** Settings for a mode no module registers (e.g. a one-off router); modules set their own. */
export const fallbackModeSettings: ModeSettings = { temperature: 0.7, maxTokens: 2000 };

/**
 * Overrides applied while the service runs (e.g. by self-improvement), read on
 * every model call so a change takes effect with no restart.
 */
export interface RuntimeSettingsSource {
  /** The current overrides of a mode (empty when none). */
  overridesFor(mode: string): Partial<ModeSettings>;
  /**
   * The engine's concurrency (most model calls in flight for independent work
   * within one call) to use now, or undefined to keep the configured one; read
   * at the start of every invocation.
   */
  concurrency?(): number | undefined;
}

/**
 * Several runtime sources read as one: a mode's overrides are merged in
 * order (a later source wins per setting), and the last source that sets a
 * concurrency wins. Used by the engine to layer the modules' sources
 * (`DeliberateModule.runtimeSettings`) under the service's own.
 */
export function combineSettingsSources(sources: readonly RuntimeSettingsSource[]): RuntimeSettingsSource {
  if (sources.length === 1) return sources[0] as RuntimeSettingsSource;
  return {
    overridesFor: (mode) =>
      Object.assign({}, ...sources.map((source) => source.overridesFor(mode))) as Partial<ModeSettings>,
    concurrency() {
      let value: number | undefined;
      for (const source of sources) value = source.concurrency?.() ?? value;
      return value;
    },
  };
}

/** A runtime source kept in memory: `set` replaces a mode's overrides, `clear` removes them. */
export interface MemorySettingsSource extends RuntimeSettingsSource {
  set(mode: string, overrides: Partial<ModeSettings>): void;
  clear(mode: string): void;
  all(): Readonly<Record<string, Partial<ModeSettings>>>;
}

export function createMemorySettingsSource(
  initial: Readonly<Record<string, Partial<ModeSettings>>> = {},
): MemorySettingsSource {
  const overrides = new Map<string, Partial<ModeSettings>>(Object.entries(initial));
  return {
    overridesFor: (mode) => overrides.get(mode) ?? {},
    set: (mode, value) => void overrides.set(mode, { ...value }),
    clear: (mode) => void overrides.delete(mode),
    all: () => Object.fromEntries(overrides),
  };
}

/**
 * The settings of every mode, layered: the registering module's defaults, then
 * static overrides (configuration), then the runtime source, read per call.
 */
export function createSettingsResolver(options: {
  defaults: Readonly<Record<string, ModeSettings>>;
  overrides?: Readonly<Record<string, Partial<ModeSettings>>>;
  runtime?: RuntimeSettingsSource;
}): (mode: string) => ModeSettings {
  return (mode) => ({
    ...(options.defaults[mode] ?? fallbackModeSettings),
    ...options.overrides?.[mode],
    ...options.runtime?.overridesFor(mode),
  });
}

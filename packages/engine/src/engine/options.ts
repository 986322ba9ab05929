import type { ModelRouter } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import type { Clock } from "../clock.ts";
import type { DeliberateModule } from "../define-module.ts";
import type { InvocationEvent } from "../engine-types.ts";
import type { IdGenerator } from "../ids.ts";
import type { ModeSettings, RuntimeSettingsSource } from "../mode-settings.ts";

/** The two forms of a needs_completion step's prompts (see `EngineOptions.hostPrompts`). */
export type HostPromptForm = "compact" | "full";

/** What `createEngine` is made from. */
export interface EngineOptions {
  /** The store, opened with the same modules (`openStore({ path, modules })`) so their tables and repositories exist. */
  store: Store;
  /** What the engine serves: every module's tools, modes, session sections, methods and tasks. */
  modules: readonly DeliberateModule[];
  /** The server-side models; a router whose provider is "host" makes model-backed calls host-executed. */
  models: ModelRouter;
  clock?: Clock;
  ids?: IdGenerator;
  /** Per-mode overrides of temperature, max tokens, thinking budget, timeout (configuration). */
  modeSettings?: Readonly<Record<string, Partial<ModeSettings>>>;
  /** Overrides that change while the service runs (read on every model call). */
  runtimeSettings?: RuntimeSettingsSource;
  /** Most model calls in flight for independent work within one call (default 8: five perspectives, k=5 or n=5 samples run in one round). */
  concurrency?: number;
  /**
   * How a needs_completion step carries its prompts: "compact" (default) names each prompt's texts and schema
   * by id and sends every block once per call; "full" repeats them in every prompt of every step, for hosts
   * written before the compact form.
   */
  hostPrompts?: HostPromptForm;
  /** How long a host-executed call waits for its completions (default one hour). */
  suspendedCallTtlMs?: number;
  /** Least milliseconds between two "generating <mode>: N tokens" progress reports of one call (default 250). */
  generationProgressIntervalMs?: number;
  /** Called once per finished invocation (for logs). */
  onInvocation?: (event: InvocationEvent) => void;
  /** The effective configuration, secrets redacted (e.g. providers' `redactSettings`), reported by reasoning_metrics config. */
  configSnapshot?: Readonly<Record<string, unknown>>;
}

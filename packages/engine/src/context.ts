import type { ErrorCode } from "@deliberate/base";
import type { ToolDefinition } from "@deliberate/contracts";
import type { GenerateProgress, ModelRouter, Usage } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import type { Clock } from "./clock.ts";
import type { ProgressUpdate } from "./engine-types.ts";
import type { IdGenerator } from "./ids.ts";
import type { ModeSettings } from "./mode-settings.ts";

/** What one invocation spent on models; becomes the invocation row. */
export interface InvocationUsage extends Usage {
  modelCalls: number;
  provider: string | null;
  model: string | null;
  /** The modes whose model was asked (or tried), in first-use order. */
  modes: string[];
}

/**
 * Everything a handler may touch. Handlers reach the outside world only
 * through this, so a call is replayable from the same inputs and model answers.
 * `Extra` is the handler's module's repositories, merged into `store`.
 */
export interface ToolContext<Extra extends object = object> {
  readonly store: Store<Extra>;
  readonly models: ModelRouter;
  /** The model settings of a mode: module defaults, environment, runtime overrides (read per call). */
  readonly settings: (mode: string) => ModeSettings;
  /** Every registered mode id. */
  readonly modes: readonly string[];
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly signal: AbortSignal;
  readonly progress: (update: ProgressUpdate) => void;
  /**
   * Reports an answer being generated (runMode passes the provider's stream
   * events here): becomes throttled progress "generating <mode>: N tokens"
   * on the scale of the handler's own progress.
   */
  readonly generation: (mode: string, event: GenerateProgress) => void;
  /**
   * Marks the invocation as failed while still returning its output (e.g. a
   * preset whose step failed returns the completed steps): the invocation row
   * records success false with this code and message.
   */
  readonly reportFailure: (failure: { code: ErrorCode; message: string }) => void;
  /** Accumulated by runMode; read by the engine when recording the invocation. */
  readonly usage: InvocationUsage;
  /** Maximum concurrent model calls for independent work. */
  readonly concurrency: number;
  /** The definitions of every tool the engine serves, by name (for tools that call others). */
  readonly tools: ReadonlyMap<string, ToolDefinition>;
  /**
   * Runs another registered tool's handler within this invocation (used by auto and presets);
   * `options.progress` receives that tool's own progress instead of the caller; `options.store`
   * (e.g. an open transaction's) replaces the store the tool sees; `options.ids` the ids it draws
   * (e.g. `context.ids.scope?.(stepId)`, so concurrent steps draw replay-stable ids).
   */
  readonly callTool: (
    toolName: string,
    input: unknown,
    options?: { progress?: (update: ProgressUpdate) => void; store?: Store; ids?: IdGenerator },
  ) => Promise<Record<string, unknown>>;
  /** Who is calling (`InvokeOptions.caller`), or null when the surface cannot tell callers apart. */
  readonly caller: string | null;
  /** The service's effective configuration, secrets already redacted (reported by reasoning_metrics). */
  readonly configSnapshot?: Readonly<Record<string, unknown>>;
}

export function createUsage(): InvocationUsage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    modelCalls: 0,
    provider: null,
    model: null,
    modes: [],
  };
}

/** ISO timestamp from the context clock. */
export function nowIso(context: Pick<ToolContext, "clock">): string {
  return context.clock.now().toISOString();
}

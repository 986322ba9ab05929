import type { ToolDefinition } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";

/** Progress of a long call (several model calls), forwarded to MCP progress notifications / SSE. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Per-call options a surface passes to the engine. */
export interface InvokeOptions {
  /** Aborts model calls in flight; the call then fails with CANCELLED. */
  signal?: AbortSignal;
  progress?: (update: ProgressUpdate) => void;
  /** Models for this call only (e.g. the connected MCP client's sampling); default: the engine's. */
  models?: ModelRouter;
}

/**
 * The engine every surface talks to. `invoke` validates the raw arguments
 * against the tool's input schema (INVALID_INPUT naming each field, nothing
 * written), runs the handler, records one invocation row, and returns output
 * that matches the tool's output schema. Failures are DeliberateError.
 */
export interface Engine {
  readonly tools: readonly ToolDefinition[];
  invoke(toolName: string, rawArguments: unknown, options?: InvokeOptions): Promise<Record<string, unknown>>;
}

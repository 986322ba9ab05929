import type { ErrorCode } from "@deliberate/base";
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
  /**
   * Who is calling, as the surface authenticated it (an opaque, stable string such as a digest
   * of the bearer token, or the stdio connection); absent when the surface cannot tell callers
   * apart. Handlers may bind what a call creates to it (the knowledge graph's sessions do).
   */
  caller?: string;
  /**
   * Called once with the output as soon as the call's writes are committed and the output is checked, before
   * the invocation row is recorded and observers are told (`invoke` still resolves with the same output after
   * them). A transport can answer from here, so the call's telemetry is not on the response's path; nothing
   * it is given is uncommitted. Not called when the call fails or suspends. A throw from it is ignored, as an
   * observer's is: it never turns the call into a failure.
   */
  onOutput?(output: Record<string, unknown>): void;
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

/** One finished invocation, as told to `onInvocation` (the service's log, modules' observers). */
export interface InvocationEvent {
  /** The id of the invocation row written for it (null when none was written: a caller mistake). */
  id: string | null;
  tool: string;
  operation: string | null;
  success: boolean;
  errorCode: ErrorCode | null;
  latencyMs: number;
  modelCalls: number;
  /** Rounds the call took: 1, or for a host-executed call every replay. */
  rounds: number;
  /** The modes whose model the call asked (or tried to), in first-use order. */
  modes: readonly string[];
}

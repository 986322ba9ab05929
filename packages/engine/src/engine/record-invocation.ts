import type { ErrorCode } from "@deliberate/base";
import type { InvocationUsage } from "../context.ts";
import type { InvocationFields } from "../tool-handler.ts";
import type { EngineCore } from "./core.ts";

// Caller mistakes change nothing and are not service behaviour, so they are not
// recorded as invocations; everything that reached a handler's real work is.
const callerErrorCodes: ReadonlySet<ErrorCode> = new Set(["INVALID_INPUT", "NOT_FOUND", "CONFLICT"]);

/** How one invocation ended: what `finishInvocation` records and tells the observers. */
export interface FinishedInvocation {
  toolName: string;
  operation: string | null;
  sessionId: unknown;
  usage: InvocationUsage;
  latencyMs: number;
  rounds: number;
  /** When the call started (its first round): self-improvement attributes it to the settings in force then. */
  startedAt: string;
  output?: Record<string, unknown>;
  failure?: { code: ErrorCode; message: string };
  recording?: InvocationFields | undefined;
}

function qualityOf(output: Record<string, unknown>, recording: InvocationFields | undefined): number | null {
  const own = recording?.quality?.(output);
  if (typeof own === "number" && Number.isFinite(own)) return own;
  for (const key of ["quality_score", "confidence", "overall_quality"]) {
    const value = output[key];
    if (typeof value === "number" && Number.isFinite(value)) return value;
  }
  return null;
}

/** The invocation row of a call that ended (none for a caller's mistake: `undefined`). */
function invocationRow(core: EngineCore, id: string, input: FinishedInvocation) {
  const { usage, failure, output } = input;
  return {
    id,
    tool: input.toolName,
    operation: input.operation,
    session_id: typeof input.sessionId === "string" ? input.sessionId : null,
    provider: usage.provider,
    model: usage.model,
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    model_calls: usage.modelCalls,
    latency_ms: input.latencyMs,
    rounds: input.rounds,
    success: failure === undefined,
    error_code: failure?.code ?? null,
    error_message: failure?.message ?? null,
    quality: output ? qualityOf(output, input.recording) : null,
    created_at: core.clock.now().toISOString(),
    started_at: input.startedAt,
  };
}

/** Tells the observers how the invocation ended (`id`: its row, or null when none was recorded). */
function notifyFinished(core: EngineCore, id: string | null, input: FinishedInvocation): void {
  const { usage, failure } = input;
  core.notify({
    id,
    tool: input.toolName,
    operation: input.operation,
    success: failure === undefined,
    errorCode: failure?.code ?? null,
    latencyMs: input.latencyMs,
    modelCalls: usage.modelCalls,
    rounds: input.rounds,
    modes: [...usage.modes],
  });
}

/**
 * The one way an invocation ends: record its row (none for a caller's mistake), then tell the observers
 * (logs, module hooks). Not an async function: a call that records no row finishes at once (`undefined`),
 * and one that does chains the observers on the store's own promise (no extra promises or hops per call;
 * the batched store answers with one already settled).
 */
export function finishInvocation(core: EngineCore, input: FinishedInvocation): Promise<void> | undefined {
  const failure = input.failure;
  if (failure !== undefined && callerErrorCodes.has(failure.code)) {
    notifyFinished(core, null, input);
    return undefined;
  }
  let recorded: Promise<void>;
  const id = core.ids.next("inv");
  try {
    recorded = core.store.invocations.record(invocationRow(core, id, input));
  } catch (error) {
    return Promise.reject(error);
  }
  return recorded.then(() => notifyFinished(core, id, input));
}

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

/** Writes the invocation row (none for a caller's mistake); returns its id, or null when nothing was recorded. */
async function recordInvocation(core: EngineCore, input: FinishedInvocation): Promise<string | null> {
  const { usage, failure, output } = input;
  if (failure !== undefined && callerErrorCodes.has(failure.code)) return null;
  const id = core.ids.next("inv");
  await core.store.invocations.record({
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
  });
  return id;
}

/** The one way an invocation ends: record its row, then tell the observers (logs, module hooks). */
export async function finishInvocation(core: EngineCore, input: FinishedInvocation): Promise<void> {
  const id = await recordInvocation(core, input);
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

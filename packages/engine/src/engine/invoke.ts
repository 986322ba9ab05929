import { DeliberateError, databaseUnavailable, isTransientDatabaseFault } from "@deliberate/base";
import { parseInput, submitTool } from "@deliberate/contracts";
import type { InvokeOptions, ProgressUpdate } from "../engine-types.ts";
import { CompletionNeeded } from "../host/completion-needed.ts";
import { sentBlocksOf } from "../host/compact-step.ts";
import { isRejectedAnswer } from "../host/replay-router.ts";
import { createReplayIds } from "../ids.ts";
import type { ToolHandler } from "../tool-handler.ts";
import type { EngineCore } from "./core.ts";
import { checkedOutput, HandlerContext } from "./handler-context.ts";
import { type Resumption, resume, suspend } from "./host-resume.ts";
import { Invocation } from "./invocation.ts";
import { finishInvocation } from "./record-invocation.ts";

function normalizeError(error: unknown, signal: AbortSignal): DeliberateError {
  if (DeliberateError.isInstance(error)) return error;
  if (signal.aborted)
    return new DeliberateError({ code: "CANCELLED", message: "The call was cancelled.", cause: error });
  if (isTransientDatabaseFault(error)) return databaseUnavailable(error);
  const message = error instanceof Error ? error.message : String(error);
  return new DeliberateError({ code: "INTERNAL", message: `Internal error: ${message}`, cause: error });
}

/** The session an invocation row names: the handler's own field, else `session_id` of the output or input. */
function sessionOf(handler: ToolHandler, input: Record<string, unknown>, output?: Record<string, unknown>): unknown {
  return handler.recording?.sessionId?.(input, output) ?? output?.["session_id"] ?? input["session_id"];
}

/** Which variant a call ran: its `operation`, `type` (detect, decision, evidence) or `query` (metrics), defaults applied. */
function variantOf(input: unknown): string | null {
  if (typeof input !== "object" || input === null) return null;
  const record = input as Record<string, unknown>;
  const variant = record["operation"] ?? record["type"] ?? record["query"];
  return typeof variant === "string" ? variant : null;
}

/** Gives the caller the committed output early (`InvokeOptions.onOutput`); its own failure is not the call's. */
function handOver(invokeOptions: InvokeOptions, output: Record<string, unknown>): void {
  try {
    invokeOptions.onOutput?.(output);
  } catch {
    // Like an observer: the call succeeded and committed, and a failing listener must not fail it (or lose its row).
  }
}

/** Progress nobody listens to. */
const ignoreProgress = (_update: ProgressUpdate): void => {};

/**
 * Runs one call to completion, failure, or (host-executed) its next suspension, and finishes the
 * invocation (one row, observers told) whichever way it ends, except a suspension.
 */
export async function execute(
  core: EngineCore,
  toolName: string,
  rawArguments: unknown,
  invokeOptions: InvokeOptions,
  resumption?: Resumption,
): Promise<Record<string, unknown>> {
  const handler = core.handlerFor(toolName);
  // Validate before anything else so bad input writes nothing at all (once: the handler gets this parse).
  const parsed = parseInput(handler.definition.inputSchema, rawArguments ?? {}, toolName);
  const call = new Invocation(core, handler, toolName, rawArguments, invokeOptions, resumption);
  const scope = call.scope;
  const context = new HandlerContext(
    call,
    invokeOptions.progress ?? ignoreProgress,
    scope.store,
    call.callId !== undefined ? createReplayIds(call.callId) : core.ids,
  );
  const raw = (rawArguments ?? {}) as Record<string, unknown>;
  const operation = variantOf(parsed);
  try {
    let output: Record<string, unknown>;
    try {
      // Awaited here, not through a helper: one promise and one hop fewer per call.
      output = checkedOutput(handler, await handler.handle(parsed as never, context));
      // A call that wrote nothing (a read) has nothing to commit: no promise to wait on.
      if (scope.hasOpenTransaction()) await scope.commit();
    } catch (error) {
      await scope.rollback().catch(() => undefined);
      throw error;
    }
    if (resumption) await core.store.suspendedCalls.delete(resumption.call.id);
    if (invokeOptions.onOutput !== undefined) handOver(invokeOptions, output);
    const finishing = finishInvocation(
      core,
      call.finished(operation, sessionOf(handler, raw, output), call.reportedFailure, output),
    );
    if (finishing !== undefined) await finishing;
    return output;
  } catch (error) {
    return failed(call, operation, raw, error);
  }
}

/** How a call that threw ends: suspended (it needs completions), or recorded as failed and rethrown. */
async function failed(
  call: Invocation,
  operation: string | null,
  raw: Record<string, unknown>,
  error: unknown,
): Promise<Record<string, unknown>> {
  const { core, handler, resumption } = call;
  if (CompletionNeeded.isInstance(error)) {
    const sent = sentBlocksOf(call.replay?.answeredPrompts() ?? []);
    const { startedAt, toolName, rawArguments } = call;
    return suspend(core, { id: call.callId ?? core.ids.next("rt"), startedAt, toolName, rawArguments }, error, {
      resumption,
      sent,
    });
  }
  if (isRejectedAnswer(error) && DeliberateError.isInstance(error)) {
    // The caller's submission is rejected (INVALID_INPUT, still resumable), but an answer that fails
    // its schema is a model-output failure of the host provider, and is recorded as one.
    const failure = { code: "MODEL_OUTPUT_INVALID" as const, message: error.message };
    const finished = call.finished(operation, sessionOf(handler, raw), failure);
    await finishInvocation(core, { ...finished, usage: { ...finished.usage, provider: "host", model: "host" } });
    throw error;
  }
  const failure = normalizeError(error, call.signalNow());
  await finishInvocation(core, call.finished(operation, sessionOf(handler, raw), failure));
  throw failure;
}

/** The engine's `invoke`: reasoning_submit resumes a suspended call; every other tool runs fresh. */
export function invoke(
  core: EngineCore,
  toolName: string,
  rawArguments: unknown,
  invokeOptions: InvokeOptions = {},
): Promise<Record<string, unknown>> {
  if (toolName === submitTool.name) {
    return resume(
      core,
      (name, args, options, resumption) => execute(core, name, args, options, resumption),
      rawArguments,
      invokeOptions,
    );
  }
  return execute(core, toolName, rawArguments, invokeOptions);
}

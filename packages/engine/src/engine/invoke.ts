import { DeliberateError, databaseUnavailable, type ErrorCode, isTransientDatabaseFault } from "@deliberate/base";
import { parseInput, submitTool } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import { createCallScope, type Store } from "@deliberate/store";
import { createUsage, type InvocationUsage, type ToolContext } from "../context.ts";
import type { InvokeOptions, ProgressUpdate } from "../engine-types.ts";
import { CompletionNeeded } from "../host/completion-needed.ts";
import { sentBlocksOf } from "../host/compact-step.ts";
import { createReplayRouter, isRejectedAnswer } from "../host/replay-router.ts";
import { createReplayIds, type IdGenerator } from "../ids.ts";
import { createProgressChannel } from "../progress-channel.ts";
import type { ToolHandler } from "../tool-handler.ts";
import { committingBeforeModelCalls } from "./committing-router.ts";
import type { EngineCore } from "./core.ts";
import { type Resumption, resume, suspend } from "./host-resume.ts";
import { type FinishedInvocation, finishInvocation } from "./record-invocation.ts";

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

/** The handler's output, checked against the tool's schema (what the schema parses it to). */
function checkedOutput(handler: ToolHandler, output: unknown): Record<string, unknown> {
  const checked = handler.definition.outputSchema.safeParse(output);
  if (!checked.success) {
    throw new DeliberateError({
      code: "INTERNAL",
      message: `${handler.definition.name} produced output that does not match its schema: ${checked.error.message}`,
    });
  }
  return checked.data as Record<string, unknown>;
}

/** Runs one handler on raw input (a tool another calls through `ctx.callTool`) and checks its output. */
async function runHandler(
  handler: ToolHandler,
  rawArguments: unknown,
  context: ToolContext,
): Promise<Record<string, unknown>> {
  const input = parseInput(handler.definition.inputSchema, rawArguments ?? {}, handler.definition.name);
  return checkedOutput(handler, await handler.handle(input as never, context));
}

/** The per-call state a handler's context is built from. */
interface CallEnvironment {
  models: ModelRouter;
  usage: InvocationUsage;
  invokeOptions: InvokeOptions;
  signalNow: () => AbortSignal;
  reportFailure: (failure: { code: ErrorCode; message: string }) => void;
}

/** The context a handler (or a tool it calls through `ctx.callTool`) runs with. */
function contextFor(
  core: EngineCore,
  call: CallEnvironment,
  progressTarget: (update: ProgressUpdate) => void,
  store: Store,
  ids: IdGenerator,
): ToolContext {
  return new HandlerContext(core, call, progressTarget, store, ids);
}

/**
 * A class, so that `signal` is a getter on the prototype (the signal is made only when a handler reads it):
 * V8 builds an object literal holding a getter of its own on a slow path, about 0.5 µs each, and that garbage
 * outlived young-generation collections. That was about 4 kB promoted per call, so every scavenge copied
 * it, which made the p99 of every tool call.
 */
class HandlerContext implements ToolContext {
  readonly models: ModelRouter;
  readonly settings: ToolContext["settings"];
  readonly modes: readonly string[];
  readonly clock: ToolContext["clock"];
  readonly tools: ToolContext["tools"];
  readonly progress: ToolContext["progress"];
  readonly generation: ToolContext["generation"];
  readonly usage: InvocationUsage;
  readonly caller: string | null;
  readonly concurrency: number;
  readonly configSnapshot: ToolContext["configSnapshot"];
  readonly reportFailure: ToolContext["reportFailure"];
  readonly callTool: ToolContext["callTool"];

  constructor(
    core: EngineCore,
    private readonly call: CallEnvironment,
    progressTarget: (update: ProgressUpdate) => void,
    readonly store: Store,
    readonly ids: IdGenerator,
  ) {
    const channel = createProgressChannel(progressTarget, core.generationProgressIntervalMs);
    this.models = call.models;
    this.settings = core.settings;
    this.modes = core.modeIds;
    this.clock = core.clock;
    this.tools = core.definitions;
    this.progress = channel.progress;
    this.generation = channel.generation;
    this.usage = call.usage;
    this.caller = call.invokeOptions.caller ?? null;
    this.concurrency = core.concurrencyNow();
    this.configSnapshot = core.configSnapshot;
    // Own functions (not methods): handlers pass them on detached.
    this.reportFailure = (failure) => call.reportFailure({ code: failure.code, message: failure.message });
    this.callTool = (name, input, callOptions) =>
      runHandler(
        core.handlerFor(name),
        input,
        callOptions === undefined
          ? this
          : contextFor(
              core,
              call,
              callOptions.progress ?? this.progress,
              callOptions.store ?? this.store,
              callOptions.ids ?? this.ids,
            ),
      );
  }

  get signal(): AbortSignal {
    return this.call.signalNow();
  }
}

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
  const started = performance.now();
  const startedAt = core.clock.now();
  const serverModels = invokeOptions.models ?? core.models;
  const hostExecuted = serverModels.provider === "host";
  // A host-executed call is replayed every round: its ids come from its (future) resume token,
  // so every replay draws the same ids and prompts built from results do not change.
  const callId = hostExecuted ? (resumption?.call.id ?? core.ids.next("rt")) : undefined;
  // The call's writes land together when it succeeds and not at all when it fails.
  const scope = createCallScope(core.store);
  // Read when first needed: a caller may make its signal on demand (a model-free call never needs one).
  let callSignal: AbortSignal | undefined;
  let reportedFailure: { code: ErrorCode; message: string } | undefined;
  const replay = hostExecuted
    ? createReplayRouter({ answers: resumption?.answers ?? {}, answerFields: resumption?.answerFields ?? {} })
    : undefined;
  const call: CallEnvironment = {
    models: replay ?? committingBeforeModelCalls(serverModels, scope),
    usage: createUsage(),
    invokeOptions,
    signalNow: () => (callSignal ??= invokeOptions.signal ?? new AbortController().signal),
    reportFailure: (failure) => {
      reportedFailure ??= failure;
    },
  };
  const context = contextFor(
    core,
    call,
    invokeOptions.progress ?? (() => {}),
    scope.store,
    callId !== undefined ? createReplayIds(callId) : core.ids,
  );
  const raw = (rawArguments ?? {}) as Record<string, unknown>;
  const operation = variantOf(parsed);
  // One object per ending (no spreads): what finishInvocation records and tells the observers.
  const finished = (
    sessionId: unknown,
    latencyMs: number,
    failure: FinishedInvocation["failure"],
    output?: Record<string, unknown>,
  ): FinishedInvocation => ({
    toolName,
    operation,
    sessionId,
    usage: call.usage,
    latencyMs,
    rounds: (resumption?.call.rounds ?? 0) + 1,
    startedAt: resumption?.call.created_at ?? startedAt.toISOString(),
    output,
    failure,
    recording: handler.recording,
  });
  // A host-executed call's latency runs from its first round to now, across every round.
  const latency = () =>
    Math.max(
      performance.now() - started,
      resumption ? core.clock.now().getTime() - Date.parse(resumption.call.created_at) : 0,
    );
  try {
    let output: Record<string, unknown>;
    try {
      // Awaited here, not through a helper: one promise and one hop fewer per call.
      output = checkedOutput(handler, await handler.handle(parsed as never, context));
      await scope.commit();
    } catch (error) {
      await scope.rollback().catch(() => undefined);
      throw error;
    }
    if (resumption) await core.store.suspendedCalls.delete(resumption.call.id);
    await finishInvocation(core, finished(sessionOf(handler, raw, output), latency(), reportedFailure, output));
    return output;
  } catch (error) {
    if (CompletionNeeded.isInstance(error)) {
      const sent = sentBlocksOf(replay?.answeredPrompts() ?? []);
      return suspend(core, { id: callId ?? core.ids.next("rt"), startedAt, toolName, rawArguments }, error, {
        resumption,
        sent,
      });
    }
    const latencyMs = latency();
    if (isRejectedAnswer(error) && DeliberateError.isInstance(error)) {
      // The caller's submission is rejected (INVALID_INPUT, still resumable), but an answer that fails
      // its schema is a model-output failure of the host provider, and is recorded as one.
      const failure = { code: "MODEL_OUTPUT_INVALID" as const, message: error.message };
      await finishInvocation(core, {
        ...finished(sessionOf(handler, raw), latencyMs, failure),
        usage: { ...call.usage, provider: "host", model: "host" },
      });
      throw error;
    }
    const failure = normalizeError(error, call.signalNow());
    await finishInvocation(core, finished(sessionOf(handler, raw), latencyMs, failure));
    throw failure;
  }
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

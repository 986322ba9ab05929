import { DeliberateError, databaseUnavailable, type ErrorCode, isTransientDatabaseFault } from "@deliberate/base";
import { parseInput, submitTool } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import { type CallScope, createCallScope, type Store } from "@deliberate/store";
import { createUsage, type InvocationUsage, type ToolContext } from "../context.ts";
import type { InvokeOptions, ProgressUpdate } from "../engine-types.ts";
import { CompletionNeeded } from "../host/completion-needed.ts";
import { sentBlocksOf } from "../host/compact-step.ts";
import { createReplayRouter, isRejectedAnswer, type ReplayRouter } from "../host/replay-router.ts";
import { createReplayIds, type IdGenerator } from "../ids.ts";
import { createProgressChannel, type ProgressChannel } from "../progress-channel.ts";
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

/** Zero usage, shared: what a call that asked no model records (a call's own is made when a handler reads it). */
const noUsage: InvocationUsage = Object.freeze({ ...createUsage(), modes: Object.freeze([]) as unknown as string[] });

/** Progress nobody listens to. */
const ignoreProgress = (_update: ProgressUpdate): void => {};

/**
 * One call's state, in one object with its methods on the prototype (not a function scope holding
 * closures): every call makes one, and while up to ~50 calls are in flight, what a call allocates
 * outlives young-generation collections and is copied and promoted, so its size is the GC's work.
 * What most calls never use (usage, the signal, replay state) is made on first use.
 */
class Invocation {
  readonly started = performance.now();
  readonly startedAt: Date;
  /** A host-executed call's id (its resume token); replays draw their ids from it. */
  readonly callId: string | undefined;
  readonly replay: ReplayRouter | undefined;
  readonly models: ModelRouter;
  readonly scope: CallScope;
  reportedFailure: { code: ErrorCode; message: string } | undefined;
  private ownUsage: InvocationUsage | undefined;
  private callSignal: AbortSignal | undefined;

  constructor(
    readonly core: EngineCore,
    readonly handler: ToolHandler,
    readonly toolName: string,
    readonly rawArguments: unknown,
    readonly invokeOptions: InvokeOptions,
    readonly resumption: Resumption | undefined,
  ) {
    this.startedAt = core.clock.now();
    const serverModels = invokeOptions.models ?? core.models;
    // The call's writes land together when it succeeds and not at all when it fails.
    this.scope = createCallScope(core.store);
    if (serverModels.provider === "host") {
      // A host-executed call is replayed every round: its ids come from its (future) resume token,
      // so every replay draws the same ids and prompts built from results do not change.
      this.callId = resumption?.call.id ?? core.ids.next("rt");
      this.replay = createReplayRouter({
        answers: resumption?.answers ?? {},
        answerFields: resumption?.answerFields ?? {},
      });
      this.models = this.replay;
    } else {
      this.callId = undefined;
      this.replay = undefined;
      this.models = committingBeforeModelCalls(serverModels, this.scope);
    }
  }

  /** What the call spent on models (made when a handler first reads it). */
  get usage(): InvocationUsage {
    this.ownUsage ??= createUsage();
    return this.ownUsage;
  }

  /** Read when first needed: a caller may make its signal on demand (a model-free call never needs one). */
  signalNow(): AbortSignal {
    this.callSignal ??= this.invokeOptions.signal ?? new AbortController().signal;
    return this.callSignal;
  }

  reportFailure(failure: { code: ErrorCode; message: string }): void {
    this.reportedFailure ??= failure;
  }

  /** A host-executed call's latency runs from its first round to now, across every round. */
  latency(): number {
    const own = performance.now() - this.started;
    const resumption = this.resumption;
    return resumption ? Math.max(own, this.core.clock.now().getTime() - Date.parse(resumption.call.created_at)) : own;
  }

  /** One object per ending (no spreads): what finishInvocation records and tells the observers. */
  finished(
    operation: string | null,
    sessionId: unknown,
    failure: FinishedInvocation["failure"],
    output?: Record<string, unknown>,
  ): FinishedInvocation {
    const resumption = this.resumption;
    return {
      toolName: this.toolName,
      operation,
      sessionId,
      usage: this.ownUsage ?? noUsage,
      latencyMs: this.latency(),
      rounds: (resumption?.call.rounds ?? 0) + 1,
      startedAt: resumption?.call.created_at ?? this.startedAt.toISOString(),
      output,
      failure,
      recording: this.handler.recording,
    };
  }
}

/**
 * The context a handler (or a tool it calls through `ctx.callTool`) runs with.
 *
 * A class, so that `signal` is a getter on the prototype (the signal is made only when a handler reads it):
 * V8 builds an object literal holding a getter of its own on a slow path, about 0.5 µs each, and that garbage
 * outlived young-generation collections. What most handlers never touch (the progress channel, `callTool`,
 * `reportFailure`) is made when first read.
 */
class HandlerContext implements ToolContext {
  private channel: ProgressChannel | undefined;
  private ownCallTool: ToolContext["callTool"] | undefined;
  private ownReportFailure: ToolContext["reportFailure"] | undefined;

  constructor(
    private readonly call: Invocation,
    private readonly progressTarget: (update: ProgressUpdate) => void,
    readonly store: Store,
    readonly ids: IdGenerator,
  ) {}

  get models(): ModelRouter {
    return this.call.models;
  }
  get settings(): ToolContext["settings"] {
    return this.call.core.settings;
  }
  get modes(): readonly string[] {
    return this.call.core.modeIds;
  }
  get clock(): ToolContext["clock"] {
    return this.call.core.clock;
  }
  get tools(): ToolContext["tools"] {
    return this.call.core.definitions;
  }
  get usage(): InvocationUsage {
    return this.call.usage;
  }
  get caller(): string | null {
    return this.call.invokeOptions.caller ?? null;
  }
  get concurrency(): number {
    return this.call.core.concurrencyNow();
  }
  get configSnapshot(): ToolContext["configSnapshot"] {
    return this.call.core.configSnapshot;
  }
  get signal(): AbortSignal {
    return this.call.signalNow();
  }

  private progressChannel(): ProgressChannel {
    this.channel ??= createProgressChannel(this.progressTarget, this.call.core.generationProgressIntervalMs);
    return this.channel;
  }
  get progress(): ToolContext["progress"] {
    return this.progressChannel().progress;
  }
  get generation(): ToolContext["generation"] {
    return this.progressChannel().generation;
  }

  // Own functions once read (not methods): handlers pass them on detached.
  get reportFailure(): ToolContext["reportFailure"] {
    this.ownReportFailure ??= (failure) => this.call.reportFailure({ code: failure.code, message: failure.message });
    return this.ownReportFailure;
  }
  get callTool(): ToolContext["callTool"] {
    this.ownCallTool ??= (name, input, callOptions) => this.runTool(name, input, callOptions);
    return this.ownCallTool;
  }

  private runTool(
    name: string,
    input: unknown,
    callOptions: Parameters<ToolContext["callTool"]>[2],
  ): Promise<Record<string, unknown>> {
    const handler = this.call.core.handlerFor(name);
    const context =
      callOptions === undefined
        ? this
        : new HandlerContext(
            this.call,
            callOptions.progress ?? this.progress,
            callOptions.store ?? this.store,
            callOptions.ids ?? this.ids,
          );
    return runHandler(handler, input, context);
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
      await scope.commit();
    } catch (error) {
      await scope.rollback().catch(() => undefined);
      throw error;
    }
    if (resumption) await core.store.suspendedCalls.delete(resumption.call.id);
    await finishInvocation(
      core,
      call.finished(operation, sessionOf(handler, raw, output), call.reportedFailure, output),
    );
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

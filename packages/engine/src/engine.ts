import { DeliberateError, databaseUnavailable, type ErrorCode, isTransientDatabaseFault } from "@deliberate/base";
import {
  type NeedsCompletion,
  orNeedsCompletion,
  parseInput,
  type Session,
  submitInputSchema,
  submitTool,
  type Thought,
  type ToolDefinition,
} from "@deliberate/contracts";
import type { LanguageModel, ModelRouter } from "@deliberate/providers";
import { type CallScope, createCallScope, type Store, type SuspendedCall } from "@deliberate/store";
import { type Clock, systemClock } from "./clock.ts";
import { createUsage, type InvocationUsage, type ToolContext } from "./context.ts";
import { type BackgroundTask, composeModules, type DeliberateModule, type SessionSection } from "./define-module.ts";
import type { Engine, InvocationEvent, InvokeOptions, ProgressUpdate } from "./engine-types.ts";
import { CompletionNeeded } from "./host/completion-needed.ts";
import { hostInstructions } from "./host/host-instructions.ts";
import { createReplayRouter, isRejectedAnswer } from "./host/replay-router.ts";
import { createReplayIds, type IdGenerator, randomIds } from "./ids.ts";
import { createProgressChannel, defaultGenerationProgressIntervalMs } from "./progress-channel.ts";
import { combineSettingsSources, createSettingsResolver, type ModeSettings, type RuntimeSettingsSource } from "./mode-settings.ts";
import type { InvocationFields, ToolHandler } from "./tool-handler.ts";
import type { ModulePrompt } from "./module-prompt.ts";

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
  /** How long a host-executed call waits for its completions (default one hour). */
  suspendedCallTtlMs?: number;
  /** Least milliseconds between two "generating <mode>: N tokens" progress reports of one call (default 250). */
  generationProgressIntervalMs?: number;
  /** Called once per finished invocation (for logs). */
  onInvocation?: (event: InvocationEvent) => void;
  /** The effective configuration, secrets redacted (e.g. providers' `redactSettings`), reported by reasoning_metrics config. */
  configSnapshot?: Readonly<Record<string, unknown>>;
}

export type { InvocationEvent } from "./engine-types.ts";

/**
 * A session with everything recorded in it (for resources, exports and REST):
 * the shared session and thoughts, plus one key per module section that has data.
 */
export interface SessionRecord {
  session: Session;
  thoughts: Thought[];
  [section: string]: unknown;
}

export interface DeliberateEngine extends Engine {
  /** A session with everything recorded in it; NOT_FOUND naming session_id when unknown. */
  readSession(sessionId: string): Promise<SessionRecord>;
  /** The most recently updated sessions, newest first. */
  listSessions(limit: number): Promise<Session[]>;
  /** Every registered mode id (for configuration checks). */
  readonly modes: readonly string[];
  /** The model settings a mode runs with now. */
  settingsFor(mode: string): ModeSettings;
  /** Custom protocol methods: method name -> the tool that implements it. */
  readonly methods: ReadonlyMap<string, string>;
  /** The composed modules' session sections (renderers for exports). */
  readonly sections: readonly SessionSection[];
  /** The composed modules' background tasks. */
  readonly tasks: readonly BackgroundTask[];
  /** The composed modules' published facts (e.g. capability objects), by key. */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** The composed modules' prompts for hosts. */
  readonly prompts: readonly ModulePrompt[];
  /** Toolset name -> its tools (the engine's own `reasoning_submit` is in none: services add it with any model-backed tool). */
  readonly toolsets: ReadonlyMap<string, readonly string[]>;
  /** The store the engine was created with. */
  readonly store: Store;
  /** The server-side models the engine was created with. */
  readonly models: ModelRouter;
  /** The concurrency a call started now runs with (configured, or a runtime source's). */
  concurrencyNow(): number;
}

// Caller mistakes change nothing and are not service behaviour, so they are not
// recorded as invocations; everything that reached a handler's real work is.
const callerErrorCodes: ReadonlySet<ErrorCode> = new Set(["INVALID_INPUT", "NOT_FOUND", "CONFLICT"]);

const defaultSuspendedCallTtlMs = 60 * 60 * 1000;
/** How long one submission may hold a suspended call (replay makes no model call, so this is generous). */
const claimLeaseMs = 2 * 60 * 1000;

function normalizeError(error: unknown, signal: AbortSignal): DeliberateError {
  if (DeliberateError.isInstance(error)) return error;
  if (signal.aborted) return new DeliberateError({ code: "CANCELLED", message: "The call was cancelled.", cause: error });
  if (isTransientDatabaseFault(error)) return databaseUnavailable(error);
  const message = error instanceof Error ? error.message : String(error);
  return new DeliberateError({ code: "INTERNAL", message: `Internal error: ${message}`, cause: error });
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

/**
 * The router a call's handler sees with server-side models: before each model
 * call it commits what the call wrote so far, so no transaction is ever held
 * while a model answers (a multi-step call such as a preset keeps its finished
 * steps; a failure rolls back only the unfinished one).
 */
function committingBeforeModelCalls(router: ModelRouter, scope: CallScope): ModelRouter {
  // The commit in progress: model calls made meanwhile wait for it too, so concurrent calls start in the order they are made.
  let committing: Promise<void> | undefined;
  const forMode = (mode: string): LanguageModel => {
    const model = router.forMode(mode);
    return {
      provider: model.provider,
      modelId: model.modelId,
      generate: (generateOptions) => {
        if (scope.hasOpenTransaction()) {
          const commit = scope.commit().finally(() => {
            if (committing === commit) committing = undefined;
          });
          committing = commit;
        }
        return committing === undefined ? model.generate(generateOptions) : committing.then(() => model.generate(generateOptions));
      },
    };
  };
  // A plain object, not Object.create(router): a router made per request (e.g. the agent intent's) would
  // otherwise become a prototype on every call, which V8 makes expensive.
  return {
    provider: router.provider,
    configured: router.configured,
    ...(router.unavailableReason !== undefined ? { unavailableReason: router.unavailableReason } : {}),
    forMode,
  };
}

/** The session an invocation row names: the handler's own field, else `session_id` of the output or input. */
function sessionOf(handler: ToolHandler, input: Record<string, unknown>, output?: Record<string, unknown>): unknown {
  return handler.recording?.sessionId?.(input, output) ?? output?.["session_id"] ?? input["session_id"];
}

/** Where a call stands in host execution: fresh, or resumed from a token with answers. */
interface Resumption {
  call: SuspendedCall;
  answers: Record<string, unknown>;
  answerFields: Record<string, string>;
}

/**
 * Creates the engine: every tool's handler behind one `invoke` that validates,
 * runs, checks the output against the tool's schema and records one row. With
 * a host router, model-backed calls suspend with their prompts and resume
 * through reasoning_submit by replaying the call with the recorded answers.
 */
export function createEngine(options: EngineOptions): DeliberateEngine {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const composition = composeModules(options.modules);
  for (const module of options.modules) {
    const needsStore = module.repositories !== undefined || Object.keys(module.migrations ?? {}).length > 0;
    if (needsStore && !options.store.contributors.has(module.name)) {
      throw new Error(`Module ${module.name} has tables: open the store with it (openStore({ path, modules }))`);
    }
  }
  // Modules' runtime sources first, the service's own last (it wins).
  const runtimeSources = [...composition.runtimeSources, ...(options.runtimeSettings ? [options.runtimeSettings] : [])];
  const runtime = runtimeSources.length > 0 ? combineSettingsSources(runtimeSources) : undefined;
  const settings = createSettingsResolver({
    defaults: composition.modes,
    ...(options.modeSettings ? { overrides: options.modeSettings } : {}),
    ...(runtime ? { runtime } : {}),
  });
  const modeIds = Object.keys(composition.modes);
  const configuredConcurrency = options.concurrency ?? 8;
  const concurrencyNow = () => {
    const value = runtime?.concurrency?.();
    return value !== undefined && Number.isInteger(value) && value >= 1 ? value : configuredConcurrency;
  };
  const observers = [...(options.onInvocation ? [options.onInvocation] : []), ...composition.invocationObservers];
  function notify(event: InvocationEvent): void {
    for (const observer of observers) {
      try {
        observer(event);
      } catch {
        // An observer never fails the call it observes.
      }
    }
  }
  const ttlMs = options.suspendedCallTtlMs ?? defaultSuspendedCallTtlMs;
  const handlers = composition.handlers as ReadonlyMap<string, ToolHandler>;
  if (handlers.has(submitTool.name)) throw new Error(`Tool ${submitTool.name} is the engine's own`);

  // The definitions surfaces publish: model-backed outputs may be a needs-completion step.
  const tools: ToolDefinition[] = [
    ...[...handlers.values()].map((handler) =>
      handler.definition.usesModel ? { ...handler.definition, outputSchema: orNeedsCompletion(handler.definition.outputSchema) } : handler.definition,
    ),
    submitTool,
  ];
  const definitions: ReadonlyMap<string, ToolDefinition> = new Map([...handlers.values()].map((handler) => [handler.definition.name, handler.definition]));

  function handlerFor(name: string): ToolHandler {
    const handler = handlers.get(name);
    if (!handler) {
      throw new DeliberateError({
        code: "NOT_FOUND",
        message: `Unknown tool: ${name}`,
        issues: [{ field: "name", message: `no tool named '${name}'` }],
        hint: `Available tools: ${[...handlers.keys(), submitTool.name].join(", ")}`,
      });
    }
    return handler;
  }

  async function run(handler: ToolHandler, rawArguments: unknown, context: ToolContext, parsed?: { input: unknown }): Promise<Record<string, unknown>> {
    const input = parsed ? parsed.input : parseInput(handler.definition.inputSchema, rawArguments ?? {}, handler.definition.name);
    const output = await handler.handle(input as never, context);
    const checked = handler.definition.outputSchema.safeParse(output);
    if (!checked.success) {
      throw new DeliberateError({
        code: "INTERNAL",
        message: `${handler.definition.name} produced output that does not match its schema: ${checked.error.message}`,
      });
    }
    return checked.data as Record<string, unknown>;
  }

  async function record(input: {
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
  }): Promise<string | null> {
    const { usage, failure, output } = input;
    if (failure !== undefined && callerErrorCodes.has(failure.code)) return null;
    const id = ids.next("inv");
    await options.store.invocations.record({
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
      created_at: clock.now().toISOString(),
      started_at: input.startedAt,
    });
    return id;
  }

  async function suspend(
    callId: string,
    startedAt: Date,
    toolName: string,
    rawArguments: unknown,
    suspension: CompletionNeeded,
    resumption: Resumption | undefined,
  ): Promise<NeedsCompletion> {
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
    const call: SuspendedCall = {
      id: callId,
      tool: toolName,
      arguments: rawArguments,
      answers: resumption?.answers ?? {},
      pending: suspension.prompts,
      rounds: (resumption?.call.rounds ?? 0) + 1,
      // When the first round started: the invocation's latency runs from here.
      created_at: resumption?.call.created_at ?? startedAt.toISOString(),
      updated_at: now.toISOString(),
      expires_at: expiresAt,
    };
    await options.store.suspendedCalls.save(call);
    return {
      status: "needs_completion",
      resume_token: call.id,
      tool: toolName,
      prompts: suspension.prompts,
      instructions: hostInstructions(suspension.prompts.length),
      expires_at: expiresAt,
    };
  }

  /** Which variant a call ran: its `operation`, `type` (detect, decision, evidence) or `query` (metrics), defaults applied. */
  function variantOf(input: unknown): string | null {
    if (typeof input !== "object" || input === null) return null;
    const record = input as Record<string, unknown>;
    const variant = record["operation"] ?? record["type"] ?? record["query"];
    return typeof variant === "string" ? variant : null;
  }

  /** Runs one call to completion, failure, or (host-executed) its next suspension. */
  async function execute(toolName: string, rawArguments: unknown, invokeOptions: InvokeOptions, resumption?: Resumption): Promise<Record<string, unknown>> {
    const handler = handlerFor(toolName);
    // Validate before anything else so bad input writes nothing at all (once: the handler gets this parse).
    const parsed = parseInput(handler.definition.inputSchema, rawArguments ?? {}, toolName);
    const started = performance.now();
    const startedAt = clock.now();
    const serverModels = invokeOptions.models ?? options.models;
    const hostExecuted = serverModels.provider === "host";
    // A host-executed call is replayed every round: its ids come from its (future) resume token,
    // so every replay draws the same ids and prompts built from results do not change.
    const callId = hostExecuted ? (resumption?.call.id ?? ids.next("rt")) : undefined;
    const callIds = callId !== undefined ? createReplayIds(callId) : ids;
    // The call's writes land together when it succeeds and not at all when it fails.
    const scope = createCallScope(options.store);
    const models = hostExecuted
      ? createReplayRouter({ answers: resumption?.answers ?? {}, answerFields: resumption?.answerFields ?? {} })
      : committingBeforeModelCalls(serverModels, scope);
    // Read when first needed: a caller may make its signal on demand (a model-free call never needs one).
    let callSignal: AbortSignal | undefined;
    const signalNow = () => (callSignal ??= invokeOptions.signal ?? new AbortController().signal);
    const usage = createUsage();
    const intervalMs = options.generationProgressIntervalMs ?? defaultGenerationProgressIntervalMs;
    let reportedFailure: { code: ErrorCode; message: string } | undefined;
    function contextFor(progressTarget: (update: ProgressUpdate) => void, store: Store, contextIds: IdGenerator): ToolContext {
      const channel = createProgressChannel(progressTarget, intervalMs);
      const context: ToolContext = {
        store,
        models,
        settings,
        modes: modeIds,
        clock,
        tools: definitions,
        ids: contextIds,
        get signal() {
          return signalNow();
        },
        progress: channel.progress,
        generation: channel.generation,
        reportFailure: (failure) => {
          reportedFailure ??= { code: failure.code, message: failure.message };
        },
        usage,
        caller: invokeOptions.caller ?? null,
        concurrency: concurrencyNow(),
        callTool: (name, input, callOptions) =>
          run(handlerFor(name), input, callOptions === undefined ? context : contextFor(callOptions.progress ?? context.progress, callOptions.store ?? context.store, callOptions.ids ?? context.ids)),
        configSnapshot: options.configSnapshot ?? {},
      };
      return context;
    }
    const context = contextFor(invokeOptions.progress ?? (() => {}), scope.store, callIds);
    const operation = variantOf(parsed);
    const raw = (rawArguments ?? {}) as Record<string, unknown>;
    const rounds = (resumption?.call.rounds ?? 0) + 1;
    const firstStartedAt = resumption?.call.created_at ?? startedAt.toISOString();
    // A host-executed call's latency runs from its first round to now, across every round.
    const latency = () => Math.max(performance.now() - started, resumption ? clock.now().getTime() - Date.parse(resumption.call.created_at) : 0);
    try {
      let output: Record<string, unknown>;
      try {
        output = await run(handler, rawArguments, context, { input: parsed });
        await scope.commit();
      } catch (error) {
        await scope.rollback().catch(() => undefined);
        throw error;
      }
      if (resumption) await options.store.suspendedCalls.delete(resumption.call.id);
      const latencyMs = latency();
      const failure = reportedFailure;
      const id = await record({ toolName, operation, sessionId: sessionOf(handler, raw, output), usage, latencyMs, rounds, startedAt: firstStartedAt, output, recording: handler.recording, ...(failure ? { failure } : {}) });
      notify({ id, tool: toolName, operation, success: failure === undefined, errorCode: failure?.code ?? null, latencyMs, modelCalls: usage.modelCalls, rounds, modes: [...usage.modes] });
      return output;
    } catch (error) {
      if (CompletionNeeded.isInstance(error)) return suspend(callId ?? ids.next("rt"), startedAt, toolName, rawArguments, error, resumption);
      const latencyMs = latency();
      if (isRejectedAnswer(error) && DeliberateError.isInstance(error)) {
        // The caller's submission is rejected (INVALID_INPUT, still resumable), but an answer that fails
        // its schema is a model-output failure of the host provider, and is recorded as one.
        const failure = { code: "MODEL_OUTPUT_INVALID" as const, message: error.message };
        const id = await record({ toolName, operation, sessionId: sessionOf(handler, raw), usage: { ...usage, provider: "host", model: "host" }, latencyMs, rounds, startedAt: firstStartedAt, failure });
        notify({ id, tool: toolName, operation, success: false, errorCode: failure.code, latencyMs, modelCalls: usage.modelCalls, rounds, modes: [...usage.modes] });
        throw error;
      }
      const failure = normalizeError(error, signalNow());
      const id = await record({ toolName, operation, sessionId: sessionOf(handler, raw), usage, latencyMs, rounds, startedAt: firstStartedAt, failure });
      notify({ id, tool: toolName, operation, success: false, errorCode: failure.code, latencyMs, modelCalls: usage.modelCalls, rounds, modes: [...usage.modes] });
      throw failure;
    }
  }

  /** reasoning_submit: merge the answers into the suspended call and replay it. */
  async function resume(rawArguments: unknown, invokeOptions: InvokeOptions): Promise<Record<string, unknown>> {
    const input = parseInput(submitInputSchema, rawArguments ?? {}, submitTool.name);
    const call = await options.store.suspendedCalls.get(input.resume_token, clock.now().toISOString());
    const pendingIds = new Set(call.pending.map((prompt) => prompt.id));
    const answers = { ...call.answers };
    const answerFields: Record<string, string> = {};
    const unknown: Array<{ field: string; message: string }> = [];
    for (const [index, entry] of input.answers.entries()) {
      if (!pendingIds.has(entry.prompt_id)) {
        unknown.push({ field: `answers.${index}.prompt_id`, message: `'${entry.prompt_id}' is not a pending prompt; pending: ${[...pendingIds].join(", ")}` });
        continue;
      }
      answers[entry.prompt_id] = entry.answer;
      answerFields[entry.prompt_id] = `answers.${index}.answer`;
    }
    if (unknown.length > 0) {
      throw new DeliberateError({
        code: "INVALID_INPUT",
        message: `Unknown prompt ids for resume_token ${call.id}: ${unknown.map((issue) => issue.message).join("; ")}`,
        issues: unknown,
        hint: "Answer the prompts of the latest needs_completion result, using their ids as prompt_id.",
      });
    }
    // Claim the call so a retried or duplicated submission cannot replay it a second time.
    const now = clock.now();
    const claimed = await options.store.suspendedCalls.claim({ id: call.id, now: now.toISOString(), until: new Date(now.getTime() + claimLeaseMs).toISOString() });
    if (!claimed) {
      throw new DeliberateError({
        code: "CONFLICT",
        message: `The suspended call ${call.id} is being resumed by another submission.`,
        issues: [{ field: "resume_token", message: "already being resumed" }],
        hint: "Wait for the other reasoning_submit to return: it gives the result or the next step.",
        retryable: true,
      });
    }
    try {
      return await execute(call.tool, call.arguments, invokeOptions, { call, answers, answerFields });
    } catch (error) {
      // Still resumable (e.g. an invalid answer): let the next submission in.
      await options.store.suspendedCalls.release(call.id);
      throw error;
    }
  }

  async function invoke(toolName: string, rawArguments: unknown, invokeOptions: InvokeOptions = {}): Promise<Record<string, unknown>> {
    if (toolName === submitTool.name) return resume(rawArguments, invokeOptions);
    return execute(toolName, rawArguments, invokeOptions);
  }

  async function readSession(sessionId: string): Promise<SessionRecord> {
    const store = options.store;
    const session = await store.sessions.get(sessionId);
    const [thoughts, ...sections] = await Promise.all([
      store.thoughts.listBySession(sessionId),
      ...composition.sections.map((section) => section.read(store, sessionId)),
    ]);
    const record: SessionRecord = { session, thoughts: thoughts as Thought[] };
    composition.sections.forEach((section, index) => {
      if (sections[index] !== undefined) record[section.name] = sections[index];
    });
    return record;
  }

  return {
    tools,
    invoke,
    readSession,
    listSessions: (limit) => options.store.sessions.list({ limit }),
    modes: modeIds,
    settingsFor: settings,
    methods: new Map([...composition.methods.values()].map((method) => [method.method, method.tool])),
    sections: composition.sections,
    tasks: composition.tasks,
    capabilities: composition.capabilities,
    prompts: composition.prompts,
    toolsets: composition.toolsets,
    store: options.store,
    models: options.models,
    concurrencyNow,
  };
}

import { DeliberateError, parseInput, type ErrorCode, type ModeId, type Session, type Thought, type ToolDefinition } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import type { Branch, Checkpoint, Store } from "@deliberate/store";
import { type Clock, systemClock } from "./clock.ts";
import { createUsage, type ToolContext } from "./context.ts";
import type { Engine, InvokeOptions } from "./engine-types.ts";
import { coreHandlers } from "./handlers/index.ts";
import { createAutoHandler } from "./handlers/auto.handler.ts";
import { type IdGenerator, randomIds } from "./ids.ts";
import { type ModeSettings, resolveModeSettings } from "./mode-settings.ts";
import type { ToolHandler } from "./tool-handler.ts";

export interface EngineOptions {
  store: Store;
  models: ModelRouter;
  clock?: Clock;
  ids?: IdGenerator;
  /** Per-mode overrides of temperature, max tokens, thinking budget, timeout. */
  modeSettings?: Partial<Record<ModeId, Partial<ModeSettings>>>;
  /** Most model calls in flight for independent work within one call (default 4). */
  concurrency?: number;
  /** Tools beyond the core ones (other packages contribute theirs here). */
  handlers?: readonly ToolHandler[];
  /** Called once per finished invocation (for logs). */
  onInvocation?: (event: InvocationEvent) => void;
}

export interface InvocationEvent {
  tool: string;
  operation: string | null;
  success: boolean;
  errorCode: ErrorCode | null;
  latencyMs: number;
  modelCalls: number;
}

/** A session with everything recorded in it (for resources, exports and REST). */
export interface SessionRecord {
  session: Session;
  thoughts: Thought[];
  branches: Branch[];
  checkpoints: Checkpoint[];
}

export interface DeliberateEngine extends Engine {
  readSession(sessionId: string): Promise<SessionRecord>;
}

// Caller mistakes change nothing and are not service behaviour, so they are not
// recorded as invocations; everything that reached a handler's real work is.
const callerErrorCodes: ReadonlySet<ErrorCode> = new Set(["INVALID_INPUT", "NOT_FOUND", "CONFLICT"]);

function normalizeError(error: unknown, signal: AbortSignal): DeliberateError {
  if (DeliberateError.isInstance(error)) return error;
  if (signal.aborted) return new DeliberateError({ code: "CANCELLED", message: "The call was cancelled.", cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new DeliberateError({ code: "INTERNAL", message: `Internal error: ${message}`, cause: error });
}

function qualityOf(output: Record<string, unknown>): number | null {
  for (const key of ["quality_score", "confidence"]) {
    const value = output[key];
    if (typeof value === "number" && Number.isFinite(value)) return value;
  }
  return null;
}

/**
 * Creates the engine: every tool's handler behind one `invoke` that validates,
 * runs, checks the output against the tool's schema and records one row.
 */
export function createEngine(options: EngineOptions): DeliberateEngine {
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const settings = resolveModeSettings(options.modeSettings);
  const concurrency = options.concurrency ?? 4;

  const handlers = new Map<string, ToolHandler>();
  for (const handler of [...coreHandlers, ...(options.handlers ?? [])]) {
    if (handlers.has(handler.definition.name)) throw new Error(`Tool ${handler.definition.name} is registered twice`);
    handlers.set(handler.definition.name, handler as ToolHandler);
  }
  const auto = createAutoHandler(new Set(handlers.keys())) as unknown as ToolHandler;
  handlers.set(auto.definition.name, auto);
  const tools: ToolDefinition[] = [...handlers.values()].map((handler) => handler.definition);

  function handlerFor(name: string): ToolHandler {
    const handler = handlers.get(name);
    if (!handler) {
      throw new DeliberateError({
        code: "NOT_FOUND",
        message: `Unknown tool: ${name}`,
        issues: [{ field: "name", message: `no tool named '${name}'` }],
        hint: `Available tools: ${[...handlers.keys()].join(", ")}`,
      });
    }
    return handler;
  }

  async function run(handler: ToolHandler, rawArguments: unknown, context: ToolContext): Promise<Record<string, unknown>> {
    const input = parseInput(handler.definition.inputSchema, rawArguments ?? {}, handler.definition.name);
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

  async function invoke(toolName: string, rawArguments: unknown, invokeOptions: InvokeOptions = {}): Promise<Record<string, unknown>> {
    const handler = handlerFor(toolName);
    // Validate before anything else so bad input writes nothing at all.
    parseInput(handler.definition.inputSchema, rawArguments ?? {}, toolName);
    const signal = invokeOptions.signal ?? new AbortController().signal;
    const usage = createUsage();
    const context: ToolContext = {
      store: options.store,
      models: options.models,
      settings,
      clock,
      ids,
      signal,
      progress: invokeOptions.progress ?? (() => {}),
      usage,
      concurrency,
      callTool: (name, input) => run(handlerFor(name), input, context),
    };
    const started = performance.now();
    const raw = (rawArguments ?? {}) as Record<string, unknown>;
    const operation = typeof raw["operation"] === "string" ? raw["operation"] : null;
    let output: Record<string, unknown> | undefined;
    let failure: DeliberateError | undefined;
    try {
      output = await run(handler, rawArguments, context);
      return output;
    } catch (error) {
      failure = normalizeError(error, signal);
      throw failure;
    } finally {
      const latencyMs = performance.now() - started;
      const sessionId = (output?.["session_id"] ?? raw["session_id"]) as string | undefined;
      if (failure === undefined || !callerErrorCodes.has(failure.code)) {
        await options.store.invocations.record({
          id: ids.next("inv"),
          tool: toolName,
          operation,
          session_id: typeof sessionId === "string" ? sessionId : null,
          provider: usage.provider,
          model: usage.model,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          cache_read_tokens: usage.cacheReadTokens,
          cache_write_tokens: usage.cacheWriteTokens,
          model_calls: usage.modelCalls,
          latency_ms: latencyMs,
          success: failure === undefined,
          error_code: failure?.code ?? null,
          error_message: failure?.message ?? null,
          quality: output ? qualityOf(output) : null,
          created_at: clock.now().toISOString(),
        });
      }
      options.onInvocation?.({ tool: toolName, operation, success: failure === undefined, errorCode: failure?.code ?? null, latencyMs, modelCalls: usage.modelCalls });
    }
  }

  async function readSession(sessionId: string): Promise<SessionRecord> {
    const session = await options.store.sessions.get(sessionId);
    const [thoughts, branches, checkpoints] = await Promise.all([
      options.store.thoughts.listBySession(sessionId),
      options.store.branches.listBySession(sessionId),
      options.store.checkpoints.listBySession(sessionId),
    ]);
    return { session, thoughts, branches, checkpoints };
  }

  return { tools, invoke, readSession };
}

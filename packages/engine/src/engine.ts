import type { Session, SessionPageQuery } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import type { BackgroundTask, SessionSection } from "./define-module.ts";
import { createEngineCore } from "./engine/core.ts";
import { invoke } from "./engine/invoke.ts";
import type { EngineOptions } from "./engine/options.ts";
import { readSession, type SessionRecord } from "./engine/read-session.ts";
import {
  readSessionPage,
  readThoughtPage,
  type SessionRecordPage,
  type ThoughtRecordPage,
} from "./engine/read-session-page.ts";
import {
  openSessionExport,
  type SessionExportStream,
  type SessionExportStreamOptions,
} from "./export/session-export-stream.ts";
import type { Engine } from "./engine-types.ts";
import type { ModeSettings } from "./mode-settings.ts";
import type { ComposedOperation } from "./module-operation.ts";
import type { ModulePrompt } from "./module-prompt.ts";
import { type RunOperationOptions, runOperation } from "./engine/run-operation.ts";

export type { EngineOptions, HostPromptForm } from "./engine/options.ts";
export type { SessionRecord } from "./engine/read-session.ts";
export type { SessionRecordPage, ThoughtRecordPage } from "./engine/read-session-page.ts";
export type { InvocationEvent } from "./engine-types.ts";
export type { RunOperationOptions } from "./engine/run-operation.ts";

export interface DeliberateEngine extends Engine {
  /** A session with everything recorded in it; NOT_FOUND naming session_id when unknown. */
  readSession(sessionId: string): Promise<SessionRecord>;
  /**
   * One window of a session: every list cut to `[offset, offset + limit)` with `page`
   * (equal to `pageSessionRecord(await readSession(id), window)`); the thoughts are read
   * as the page alone, so it costs what its items cost. NOT_FOUND naming session_id when unknown.
   */
  readSessionPage(sessionId: string, window: SessionPageQuery): Promise<SessionRecordPage>;
  /** One window of a session's thoughts alone, with `page` (thoughts' total); NOT_FOUND naming session_id when unknown. */
  readThoughtPage(sessionId: string, window: SessionPageQuery): Promise<ThoughtRecordPage>;
  /**
   * Opens a streamed export (Markdown or JSON, the text `exportSession` renders) read a page
   * of thoughts at a time as it is pulled; NOT_FOUND naming session_id, before any text, when unknown.
   */
  openSessionExport(sessionId: string, options: SessionExportStreamOptions): Promise<SessionExportStream>;
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
  /** The composed modules' operations, in module order (services mount them; see `ModuleOperation`). */
  readonly operations: readonly ComposedOperation[];
  /**
   * Runs an operation by qualified name (`<module>/<operation>`): INVALID_INPUT naming each bad field,
   * NOT_FOUND for an unknown name; the handler's failures as they are.
   */
  runOperation(qualifiedName: string, rawInput: unknown, options?: RunOperationOptions): Promise<unknown>;
}

/**
 * Creates the engine: every tool's handler behind one `invoke` that validates,
 * runs, checks the output against the tool's schema and records one row. With
 * a host router, model-backed calls suspend with their prompts and resume
 * through reasoning_submit by replaying the call with the recorded answers.
 */
export function createEngine(options: EngineOptions): DeliberateEngine {
  const core = createEngineCore(options);
  const { composition } = core;
  return {
    tools: core.tools,
    invoke: (toolName, rawArguments, invokeOptions) => invoke(core, toolName, rawArguments, invokeOptions),
    readSession: (sessionId) => readSession(core, sessionId),
    readSessionPage: (sessionId, window) => readSessionPage(core, sessionId, window),
    readThoughtPage: (sessionId, window) => readThoughtPage(core, sessionId, window),
    openSessionExport: (sessionId, exportOptions) => openSessionExport(core, sessionId, exportOptions),
    listSessions: (limit) => options.store.sessions.list({ limit }),
    modes: core.modeIds,
    settingsFor: core.settings,
    methods: new Map([...composition.methods.values()].map((method) => [method.method, method.tool])),
    sections: composition.sections,
    tasks: composition.tasks,
    capabilities: composition.capabilities,
    prompts: composition.prompts,
    toolsets: composition.toolsets,
    store: options.store,
    models: options.models,
    concurrencyNow: core.concurrencyNow,
    operations: [...composition.operations.values()],
    runOperation: (qualifiedName, rawInput, runOptions) => runOperation(core, qualifiedName, rawInput, runOptions),
  };
}

import { DeliberateError } from "@deliberate/base";
import { orNeedsCompletion, submitTool, type ToolDefinition } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import { type Clock, systemClock } from "../clock.ts";
import { composeModules } from "../define-module.ts";
import type { InvocationEvent } from "../engine-types.ts";
import type { IdGenerator } from "../ids.ts";
import { randomIds } from "../ids.ts";
import { combineSettingsSources, createSettingsResolver, type ModeSettings } from "../mode-settings.ts";
import { defaultGenerationProgressIntervalMs } from "../progress-channel.ts";
import type { ToolHandler } from "../tool-handler.ts";
import type { EngineOptions, HostPromptForm } from "./options.ts";

const defaultSuspendedCallTtlMs = 60 * 60 * 1000;

/** Everything the engine's steps share, resolved once from the options and the composed modules. */
export interface EngineCore {
  readonly store: Store;
  readonly models: ModelRouter;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly composition: ReturnType<typeof composeModules>;
  readonly settings: (mode: string) => ModeSettings;
  readonly modeIds: readonly string[];
  /** The definitions surfaces publish: model-backed outputs may be a needs-completion step. */
  readonly tools: readonly ToolDefinition[];
  /** Each handler's own definition, by tool name (what `ctx.tools` lists). */
  readonly definitions: ReadonlyMap<string, ToolDefinition>;
  readonly suspendedCallTtlMs: number;
  readonly hostPrompts: HostPromptForm;
  readonly generationProgressIntervalMs: number;
  readonly configSnapshot: Readonly<Record<string, unknown>>;
  /** The handler of a tool; NOT_FOUND naming the available tools otherwise. */
  handlerFor(name: string): ToolHandler;
  /** The concurrency a call started now runs with (configured, or a runtime source's). */
  concurrencyNow(): number;
  /** Tells every observer of a finished invocation; an observer's throw never fails the call. */
  notify(event: InvocationEvent): void;
}

function checkModulesHaveTheirTables(options: EngineOptions): void {
  for (const module of options.modules) {
    const needsStore = module.repositories !== undefined || Object.keys(module.migrations ?? {}).length > 0;
    if (needsStore && !options.store.contributors.has(module.name)) {
      throw new Error(`Module ${module.name} has tables: open the store with it (openStore({ path, modules }))`);
    }
  }
}

function unknownTool(name: string, handlers: ReadonlyMap<string, ToolHandler>): DeliberateError {
  return new DeliberateError({
    code: "NOT_FOUND",
    message: `Unknown tool: ${name}`,
    issues: [{ field: "name", message: `no tool named '${name}'` }],
    hint: `Available tools: ${[...handlers.keys(), submitTool.name].join(", ")}`,
  });
}

/** Composes the modules and resolves the options into the state every step reads. */
export function createEngineCore(options: EngineOptions): EngineCore {
  const composition = composeModules(options.modules);
  checkModulesHaveTheirTables(options);
  // Modules' runtime sources first, the service's own last (it wins).
  const runtimeSources = [...composition.runtimeSources, ...(options.runtimeSettings ? [options.runtimeSettings] : [])];
  const runtime = runtimeSources.length > 0 ? combineSettingsSources(runtimeSources) : undefined;
  const settings = createSettingsResolver({
    defaults: composition.modes,
    ...(options.modeSettings ? { overrides: options.modeSettings } : {}),
    ...(runtime ? { runtime } : {}),
  });
  const configuredConcurrency = options.concurrency ?? 8;
  const observers = [...(options.onInvocation ? [options.onInvocation] : []), ...composition.invocationObservers];
  const handlers = composition.handlers as ReadonlyMap<string, ToolHandler>;
  if (handlers.has(submitTool.name)) throw new Error(`Tool ${submitTool.name} is the engine's own`);
  return {
    store: options.store,
    models: options.models,
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIds,
    composition,
    settings,
    modeIds: Object.keys(composition.modes),
    tools: [
      ...[...handlers.values()].map((handler) =>
        handler.definition.usesModel
          ? { ...handler.definition, outputSchema: orNeedsCompletion(handler.definition.outputSchema) }
          : handler.definition,
      ),
      submitTool,
    ],
    definitions: new Map([...handlers.values()].map((handler) => [handler.definition.name, handler.definition])),
    suspendedCallTtlMs: options.suspendedCallTtlMs ?? defaultSuspendedCallTtlMs,
    hostPrompts: options.hostPrompts ?? "compact",
    generationProgressIntervalMs: options.generationProgressIntervalMs ?? defaultGenerationProgressIntervalMs,
    configSnapshot: options.configSnapshot ?? {},
    handlerFor(name) {
      const handler = handlers.get(name);
      if (!handler) throw unknownTool(name, handlers);
      return handler;
    },
    concurrencyNow() {
      const value = runtime?.concurrency?.();
      return value !== undefined && Number.isInteger(value) && value >= 1 ? value : configuredConcurrency;
    },
    notify(event) {
      for (const observer of observers) {
        try {
          observer(event);
        } catch {
          // An observer never fails the call it observes.
        }
      }
    },
  };
}

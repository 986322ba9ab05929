import {
  type Clock,
  createEngine,
  createTaskRunner,
  type DeliberateEngine,
  type DeliberateModule,
  type IdGenerator,
  type TaskRunner,
} from "@deliberate/engine";
import type { Logger } from "@deliberate/logging";
import { createModelRouter, type ModelRouter, redactSettings, unknownModeModels } from "@deliberate/providers";
import {
  defaultInvocationBatch,
  describeDatabaseTarget,
  type OpenStoreOptions,
  openStore,
  type Store,
} from "@deliberate/store";
import type { CommonSettings } from "./common-settings.ts";

/** What `createRuntime` needs: the parsed settings, the modules, a logger, and the surface it serves. */
export interface RuntimeOptions {
  settings: Pick<
    CommonSettings,
    "database" | "databasePoolSize" | "providers" | "logLevel" | "hostCompletionTtlSeconds" | "hostPrompts"
  > &
    Partial<Pick<CommonSettings, "moduleSettings">>;
  modules: readonly DeliberateModule[];
  logger: Logger;
  /** The transport the service answers on (`stdio`, `http`, `rest`): reported in the config snapshot. */
  transport: string;
  /** Use this store instead of opening `settings.database` (the caller closes it). */
  store?: Store;
  /** Extra `openStore` options (group commit, background checkpoints). */
  storeOptions?: Partial<Pick<OpenStoreOptions, "groupCommit" | "backgroundCheckpoints">>;
  /** The server's models; default `createModelRouter(settings.providers)`. Unconfigured: tools are host-executed. */
  models?: ModelRouter;
  /** What the engine calls models through, when not `models` (the HTTP API: host-executed tools without a configured provider). */
  engineModels?: DeliberateEngineModels;
  clock?: Clock;
  ids?: IdGenerator;
}

type DeliberateEngineModels = NonNullable<Parameters<typeof createEngine>[0]["models"]>;

/** The store, engine and background tasks of a service, with one way to close them. */
export interface Runtime {
  readonly store: Store;
  readonly engine: DeliberateEngine;
  readonly tasks: TaskRunner;
  readonly models: ModelRouter;
  /** Starts the background tasks. */
  start(): Promise<void>;
  /** Stops the background tasks, then closes the store (when this runtime opened it). */
  close(): Promise<void>;
}

/**
 * Opens the store, builds the engine (with the config snapshot `reasoning_metrics {query: "config"}`
 * reports, the same over every surface) and the modules' background tasks.
 */
export async function createRuntime(options: RuntimeOptions): Promise<Runtime> {
  const { settings, modules, logger } = options;
  const log = (level: "debug" | "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) =>
    logger[level](message, fields);
  const ownsStore = options.store === undefined;
  const store =
    options.store ??
    (await openStore({
      target: settings.database,
      poolSize: settings.databasePoolSize,
      modules,
      // A connection the server dropped (restart, fail-over) is replaced; calls meanwhile get a retryable STORAGE error.
      onConnectionError: (error) => logger.warn("database connection lost; it is replaced when next needed", { error }),
      // Invocation rows are batched (a crash loses none older than 20 ms: at most the last 128, 255 in a burst); tools' state commits before each response.
      invocationBatch: {
        ...defaultInvocationBatch,
        onError: (error, rows) => logger.warn("invocation rows not written", { error, rows }),
      },
      ...options.storeOptions,
    }));
  const models = options.models ?? createModelRouter(settings.providers);
  const engine = createEngine({
    store,
    modules,
    models: options.engineModels ?? models,
    suspendedCallTtlMs: settings.hostCompletionTtlSeconds * 1000,
    hostPrompts: settings.hostPrompts,
    configSnapshot: configSnapshot(settings, options.transport),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    // Only when debug lines are written: otherwise each call would copy its event for nothing.
    ...(logger.level === "debug" ? { onInvocation: (event) => logger.debug("invocation", { ...event }) } : {}),
  });
  for (const warning of unknownModeModels(settings.providers, engine.modes)) logger.warn(warning);
  const tasks = createTaskRunner({
    engine,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    log,
  });
  return {
    store,
    engine,
    tasks,
    models,
    start: () => tasks.start(),
    async close() {
      await tasks.stop().catch((error: unknown) => logger.warn("stopping the background tasks failed", { error }));
      if (ownsStore)
        await store.close().catch((error: unknown) => logger.warn("closing the database failed", { error }));
    },
  };
}

/** The settings `reasoning_metrics {query: "config"}` reports (secrets redacted). */
export function configSnapshot(settings: RuntimeOptions["settings"], transport: string): Record<string, unknown> {
  return {
    providers: redactSettings(settings.providers),
    database: describeDatabaseTarget(settings.database),
    transport,
    log_level: settings.logLevel,
    host_completion_ttl_seconds: settings.hostCompletionTtlSeconds,
    host_prompts: settings.hostPrompts,
    // Each default module's options as its declared variables give them (the same on every service).
    modules: settings.moduleSettings?.report ?? {},
  };
}

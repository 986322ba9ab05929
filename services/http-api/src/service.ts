import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import { hostname } from "node:os";
import { getRequestListener } from "@hono/node-server";
import {
  type Clock,
  loadModules,
  type DeliberateEngine,
  type DeliberateModule,
  hostModelRouter,
  type IdGenerator,
  randomIds,
  systemClock,
  type TaskRunner,
} from "@deliberate/engine";
import { createModelRouter, type ModelRouter } from "@deliberate/providers";
import { createRuntime, defaultModules } from "@deliberate/runtime";
import type { Store } from "@deliberate/store";
import type { Hono } from "hono";
import { agentIntentModule } from "./agent-intent-module.ts";
import { composeApp } from "./app.ts";
import { createHttpChecks } from "./http-checks.ts";
import { createDispatcher } from "./pipeline/dispatcher.ts";
import { databaseRateLimitStore, memoryRateLimitStore } from "./middleware/rate-limit.ts";
import type { AppEnv } from "./app-env.ts";
import type { ApiRepositories } from "./store/contribution.ts";
import type { ApiConfig } from "./config.ts";
import { createIntentDecider, type IntentDecider } from "./intent/decide-intent.ts";
import type { RouterFactory } from "./intent/request-models.ts";
import { closeHttpServer, createHttpServer, listenForBaseUrl } from "./http-server.ts";
import type { Logger, SecretRegistry } from "./logger.ts";
import type { AgentIntentJobs } from "./queue/agent-intent-jobs.ts";
import type { HostLookup } from "./queue/callback-guard.ts";
import { createServiceQueue } from "./queue/service-queue.ts";
import type { WorkerPool } from "./queue/worker-pool.ts";
import { createServiceLogging } from "./service-logger.ts";
import { createTelemetry, type Telemetry } from "./telemetry.ts";

/** The service version (reported in /openapi.json). */
export const serviceVersion = "0.1.0";

export interface ApiServiceOptions {
  config: ApiConfig;
  /**
   * Modules served beside the built-in ones (reasoning, agent-intent): their
   * tools appear at /v1/tools, in OpenAPI and metrics, and their tables are migrated.
   */
  modules?: readonly DeliberateModule[];
  /** Use this store instead of opening `config.database` (opened with the same modules; the caller closes it). */
  store?: Store;
  logger?: Logger;
  /** Where log lines go instead of stderr (REASONING_LOG_FILE / REASONING_LOG_STDOUT mirrors still apply). */
  logSinks?: ReadonlyArray<(line: string) => void>;
  clock?: Clock;
  ids?: IdGenerator;
  /** The server's models; default `createModelRouter(config.providers)`. */
  models?: ModelRouter;
  /** Builds one-off routers for requests that choose their own `llm`. */
  createRouter?: RouterFactory;
  /** DNS lookup for the callback guard (tests). */
  lookup?: HostLookup;
  /** Answer JSON operations on node:http directly (`createDispatcher`); default `config.http.fastPath`. False serves everything through Hono. */
  fastPath?: boolean;
  /** Identity of this process in the queue; default host:pid:random. */
  owner?: string;
}

/** The whole service: app, engine, queue workers, telemetry, and its lifecycle. */
export interface ApiService {
  readonly app: Hono<AppEnv>;
  readonly engine: DeliberateEngine;
  readonly store: Store<ApiRepositories>;
  readonly decider: IntentDecider;
  readonly jobs: AgentIntentJobs;
  readonly pool: WorkerPool | undefined;
  /** The composed modules' background tasks (started with the service, stopped with it). */
  readonly tasks: TaskRunner;
  readonly telemetry: Telemetry;
  readonly logger: Logger;
  readonly secrets: SecretRegistry;
  /** Listens on config.host:config.port (0 picks a port) and starts the workers; resolves to the base URL. */
  start(): Promise<string>;
  /**
   * Graceful shutdown: stop accepting connections, let requests and running
   * jobs finish (up to the grace period; then abort them and put unfinished
   * jobs back in the queue), flush telemetry, close the database.
   */
  stop(): Promise<void>;
}

/**
 * The modules served: the runtime's defaults with this service's agent-intent module (a module in `extra` takes the
 * place of the default of its name: tests bring their own instances), the `DELIBERATE_MODULES` plug-ins, then `extra`.
 */
async function servedModules(
  config: ApiConfig,
  extra: readonly DeliberateModule[] | undefined,
): Promise<DeliberateModule[]> {
  const serviceModules = [agentIntentModule as DeliberateModule];
  return [
    ...defaultModules({
      knowledgeGraph: config.knowledgeGraph,
      moduleSettings: config.moduleSettings,
      serviceModules,
      ...(extra ? { replacedBy: extra } : {}),
    }),
    ...(await loadModules(config.modules)),
    ...(extra ?? []),
  ];
}

/**
 * The shared runtime (store, engine, module tasks) as the REST service runs it: SQLite commits grouped across
 * concurrent requests with checkpoints off the request path, and host-executed tools when no server model is set.
 */
function openServiceRuntime(
  config: ApiConfig,
  modules: DeliberateModule[],
  parts: { logger: Logger; models: ModelRouter; clock: Clock; ids: IdGenerator; store: Store | undefined },
): ReturnType<typeof createRuntime> {
  const { logger, models: serverModels, clock, ids } = parts;
  return createRuntime({
    settings: config,
    modules,
    logger,
    transport: "rest",
    ...(parts.store ? { store: parts.store } : {}),
    // Concurrent requests' transactions share one COMMIT on SQLite; each is answered only after it (nothing acknowledged is lost).
    // SQLite's WAL checkpoints (two fsyncs each) run on a worker thread, not inside a request's COMMIT.
    storeOptions: {
      groupCommit: true,
      backgroundCheckpoints: {
        onError: (error) =>
          logger.warn("background WAL checkpoints stopped; SQLite checkpoints in its commits again", { error }),
      },
    },
    models: serverModels,
    // Tools without a server-side model are host-executed (they return their prompts to the caller).
    engineModels: serverModels.configured ? serverModels : hostModelRouter,
    clock,
    ids,
  });
}

/** Builds the whole service (not listening yet: `start()` listens and starts the workers). */
export async function createApiService(options: ApiServiceOptions): Promise<ApiService> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const { logger, secrets } = createServiceLogging(config, options);
  const modules = await servedModules(config, options.modules);
  const serverModels = options.models ?? createModelRouter(config.providers);
  const runtime = await openServiceRuntime(config, modules, {
    logger,
    models: serverModels,
    clock,
    ids,
    store: options.store,
  });
  const store = runtime.store as Store<ApiRepositories>;
  const { engine, tasks } = runtime;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  const telemetry = createTelemetry({ store, logger, secrets, clock, ids });
  const decider = createIntentDecider({
    engine,
    providers: config.providers,
    serverModels,
    clock,
    ids,
    secrets,
    telemetry,
    ...(options.createRouter ? { createRouter: options.createRouter } : {}),
  });
  const { jobs, pool } = createServiceQueue({
    config,
    store,
    decider,
    owner,
    clock,
    ids,
    secrets,
    telemetry,
    logger,
    lookup: options.lookup,
  });
  const checks = createHttpChecks({
    http: config.http,
    ids,
    logger,
    rateLimitStore:
      config.http.rateLimitStore === "database" ? databaseRateLimitStore(store.rateLimits) : memoryRateLimitStore(),
    // One clock for the service: the windows of the rate limit and the lockout follow a given one too (the
    // system clock's are Date.now, with no Date made per request).
    ...(options.clock ? { now: () => clock.now().getTime() } : {}),
  });
  const { app, table, checkList } = composeApp({
    checks,
    engine,
    decider,
    jobs,
    ...(pool ? { abortCanceled: (jobIds: readonly string[]) => pool?.abortCanceled(jobIds) } : {}),
    telemetry,
    logger,
    http: config.http,
    ids,
    version: serviceVersion,
  });

  // JSON operations are answered on node:http directly by the dispatcher (from the same table and checks as the app).
  const direct = (options.fastPath ?? config.http.fastPath) !== false;

  let server: Server | undefined;
  let stopped: Promise<void> | undefined;

  async function stop(): Promise<void> {
    const closing = server ? closeHttpServer(server, config.shutdownGraceMs) : Promise.resolve();
    await Promise.all([closing, pool?.stop({ graceMs: config.shutdownGraceMs }), tasks.stop()]);
    await telemetry.flush();
    // The tasks stopped above; this closes the store when the runtime opened it.
    await runtime.close();
  }

  return {
    app,
    engine,
    store,
    decider,
    jobs,
    pool,
    tasks,
    telemetry,
    logger,
    secrets,
    async start() {
      // Modules restore their state (e.g. overrides they applied) before the first request.
      await tasks.start();
      // Hono answers what the dispatcher does not answer directly (app.fetch is read now: tests wrap it).
      const hono = getRequestListener(app.fetch, { hostname: config.host });
      server = createHttpServer(
        config.http,
        direct ? createDispatcher({ table, checks, list: checkList, hono }) : hono,
        () => checks.requestId(undefined),
      );
      const baseUrl = await listenForBaseUrl(server, config.port, config.host);
      pool?.start();
      return baseUrl;
    },
    stop() {
      stopped ??= stop();
      return stopped;
    },
  };
}

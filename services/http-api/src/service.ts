import { randomUUID } from "node:crypto";
import { createServer as createNodeServer, type RequestListener, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { hostname } from "node:os";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { answerAndClose, canonicalizeHostHeader, httpParseRefusal, rawHttpResponse } from "@deliberate/contracts";
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
import { createLogger, createSecretRegistry, fileSink, stdoutSink, type Logger, type SecretRegistry } from "./logger.ts";
import { createAgentIntentJobs, type AgentIntentJobs } from "./queue/agent-intent-jobs.ts";
import { createCallbackGuard, type HostLookup } from "./queue/callback-guard.ts";
import { createWorkerPool, type WorkerPool } from "./queue/worker-pool.ts";
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
async function servedModules(config: ApiConfig, extra: readonly DeliberateModule[] | undefined): Promise<DeliberateModule[]> {
  const serviceModules = [agentIntentModule as DeliberateModule];
  return [
    ...defaultModules({ knowledgeGraph: config.knowledgeGraph, moduleSettings: config.moduleSettings, serviceModules, ...(extra ? { replacedBy: extra } : {}) }),
    ...(await loadModules(config.modules)),
    ...(extra ?? []),
  ];
}

export async function createApiService(options: ApiServiceOptions): Promise<ApiService> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? randomIds;
  const secrets = createSecretRegistry([config.providers.anthropic.apiKey, config.providers.openai.apiKey, config.http.apiToken, config.callbacks.secret]);
  const sinks: Array<(line: string) => void> = options.logSinks ? [...options.logSinks] : [(line) => void process.stderr.write(line)];
  if (config.logFile) sinks.push(fileSink(config.logFile));
  if (config.logStdout) sinks.push(stdoutSink);
  const logger = options.logger ?? createLogger({ level: config.logLevel, sinks, secrets });
  const modules = await servedModules(config, options.modules);
  const serverModels = options.models ?? createModelRouter(config.providers);
  const runtime = await createRuntime({
    settings: config,
    modules,
    logger,
    transport: "rest",
    ...(options.store ? { store: options.store } : {}),
    // Concurrent requests' transactions share one COMMIT on SQLite; each is answered only after it (nothing acknowledged is lost).
    // SQLite's WAL checkpoints (two fsyncs each) run on a worker thread, not inside a request's COMMIT.
    storeOptions: {
      groupCommit: true,
      backgroundCheckpoints: { onError: (error) => logger.warn("background WAL checkpoints stopped; SQLite checkpoints in its commits again", { error }) },
    },
    models: serverModels,
    // Tools without a server-side model are host-executed (they return their prompts to the caller).
    engineModels: serverModels.configured ? serverModels : hostModelRouter,
    clock,
    ids,
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
  const guard = createCallbackGuard({ allowlist: config.callbacks.allowlist, ...(options.lookup ? { lookup: options.lookup } : {}) });
  let pool: WorkerPool | undefined;
  const jobs = createAgentIntentJobs({
    store,
    decider,
    guard,
    callbacks: config.callbacks,
    owner,
    leaseMs: config.queue.leaseMs,
    maxAttempts: config.queue.maxAttempts,
    jobTimeoutMs: config.http.requestTimeoutMs,
    clock,
    ids,
    secrets,
    telemetry,
    logger,
    onEnqueued: () => pool?.wake(),
  });
  if (config.queue.enabled) {
    pool = createWorkerPool({
      jobs: store.jobs,
      owner,
      workers: config.queue.workers,
      pollMs: config.queue.pollMs,
      leaseMs: config.queue.leaseMs,
      clock,
      logger,
      telemetry,
      recoveryMessages: jobs.recoveryMessages,
      run: (job, signal) => jobs.run(job, signal),
      deliver: (job, signal, drain) => jobs.deliver(job, signal, drain),
      onJobEnded: (jobId) => jobs.forget(jobId),
      statusMs: config.queue.statusMs,
      statusPollMs: config.queue.statusPollMs,
    });
  }
  const checks = createHttpChecks({
    http: config.http,
    ids,
    logger,
    rateLimitStore: config.http.rateLimitStore === "database" ? databaseRateLimitStore(store.rateLimits) : memoryRateLimitStore(),
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
    const closing = server
      ? new Promise<void>((resolve) => {
          const current = server as Server;
          const force = setTimeout(() => current.closeAllConnections(), config.shutdownGraceMs);
          force.unref();
          // Keep-alive connections become idle as their last response ends: close them as they do.
          const sweep = setInterval(() => current.closeIdleConnections(), 25);
          current.close(() => {
            clearTimeout(force);
            clearInterval(sweep);
            resolve();
          });
          current.closeIdleConnections();
        })
      : Promise.resolve();
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
      return new Promise<string>((resolve, reject) => {
        // Hono answers what the dispatcher does not answer directly (app.fetch is read now: tests wrap it).
        const hono = getRequestListener(app.fetch, { hostname: config.host });
        const started = createHttpServer(config.http, direct ? createDispatcher({ table, checks, list: checkList, hono }) : hono, () => checks.requestId(undefined));
        started.listen(config.port, config.host, () => {
          const info = started.address() as AddressInfo;
          const host = info.family === "IPv6" ? `[${info.address}]` : info.address;
          pool?.start();
          resolve(`http://${host}:${info.port}`);
        });
        started.once("error", reject);
        server = started;
      });
    },
    stop() {
      stopped ??= stop();
      return stopped;
    },
  };
}

/** The node:http server of the service: its time limits, canonical Host headers, and parse refusals answered as JSON. */
function createHttpServer(http: ApiConfig["http"], listener: RequestListener, newRequestId: () => string): Server {
  // Slow clients are dropped: headers and the whole request must arrive in time (node answers 408 and
  // closes). Node checks every connectionsCheckingInterval (30 s by default), so check more often.
  const serverOptions = {
    headersTimeout: http.headersTimeoutMs,
    requestTimeout: http.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(http.headersTimeoutMs / 4))),
  };
  const server = createNodeServer(serverOptions, (request, response) => {
    // The Host header is read case-insensitively, an IPv6 address in any spelling (canonicalizeHostHeader).
    canonicalizeHostHeader(request);
    listener(request, response);
  });
  // Idle keep-alive connections outlive the clients' own idle limits (undici's is 4 s), so a client closes
  // first: with node's 5 s a client whose event loop was busy reused a socket being closed ("other side closed").
  server.keepAliveTimeout = 30_000;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => answerClientError(error, socket, newRequestId()));
  return server;
}

/**
 * A request node's parser refused before any route saw it: the service's JSON
 * error body (400 INVALID_INPUT naming the field), then the connection is
 * closed (see httpParseRefusal).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, requestId: string): void {
  const refusal = httpParseRefusal(error.code, socket.writable);
  if (refusal.kind === "close") return void socket.destroy();
  if (refusal.kind === "status") {
    answerAndClose(socket, rawHttpResponse(refusal.status));
    return;
  }
  const { field, message } = refusal;
  const json = JSON.stringify({
    status: "error",
    error: { code: "INVALID_INPUT", message: `Malformed request: ${field}: ${message}`, issues: [{ field, message }], hint: "Send header values as printable text (percent-encode or drop control characters).", retryable: false },
    request_id: requestId,
  });
  answerAndClose(socket, rawHttpResponse("400 Bad Request", { json, headers: { "X-Request-Id": requestId } }));
}

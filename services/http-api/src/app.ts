import { DeliberateError } from "@deliberate/contracts";
import type { DeliberateEngine, IdGenerator } from "@deliberate/engine";
import { checkDatabase } from "@deliberate/store";
import { Hono } from "hono";
import type { AppEnv } from "./app-env.ts";
import type { HttpSettings } from "./config.ts";
import { toErrorResponse } from "./errors.ts";
import { createHttpChecks, type HttpChecks, viewerPath } from "./http-checks.ts";
import type { IntentDecider } from "./intent/decide-intent.ts";
import type { Logger } from "./logger.ts";
import { restCallerFor } from "./caller-identity.ts";
import { bearerAuth } from "./middleware/bearer-auth.ts";
import { bodyLimit } from "./middleware/body-limit.ts";
import { type RateLimitStore, rateLimit } from "./middleware/rate-limit.ts";
import { requestSignal } from "./middleware/request-signal.ts";
import { createOperationCatalog } from "./openapi/operation.ts";
import type { AgentIntentJobs } from "./queue/agent-intent-jobs.ts";
import { docsRoutes } from "./routes/docs.routes.ts";
import { healthRoutes } from "./routes/health.routes.ts";
import { intentRoutes } from "./routes/intent.routes.ts";
import { moduleRoutes } from "./routes/module.routes.ts";
import { sessionRoutes } from "./routes/session.routes.ts";
import { sessionExportRoutes } from "./routes/session-export.routes.ts";
import { toolRoutes } from "./routes/tools.routes.ts";
import { workflowRoutes } from "./routes/workflow.routes.ts";
import { createEngineViewer, findViewerAssetsDirectory } from "@deliberate/viewer";
import type { Telemetry } from "./telemetry.ts";

/** What the app is composed from; `createApiService` wires the real ones. */
export interface AppDependencies {
  engine: DeliberateEngine;
  decider: IntentDecider;
  jobs: AgentIntentJobs;
  /** Aborts the model work of canceled jobs running in this process (the worker pool). */
  abortCanceled?: (jobIds: readonly string[]) => void;
  telemetry: Telemetry;
  logger: Logger;
  http: HttpSettings;
  ids: IdGenerator;
  version: string;
  /** Where the rate limiter counts; default this process's memory. */
  rateLimitStore?: RateLimitStore;
  /** The request checks shared with the HTTP fast path; default new ones from `http`, `ids`, `logger` and `rateLimitStore`. */
  checks?: HttpChecks;
}

export { viewerPath };

/**
 * The HTTP API as a Hono app: request id, version check, bearer auth, rate
 * limit, body limit and request timeout, then the sub-apps composed with
 * `app.route()`. Every error leaves through one handler that maps its code to
 * a status (`httpStatusByCode`) with the JSON error body.
 */
export function createApp(deps: AppDependencies): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const catalog = createOperationCatalog();

  const checks = deps.checks ?? createHttpChecks({ http: deps.http, ids: deps.ids, logger: deps.logger, ...(deps.rateLimitStore ? { rateLimitStore: deps.rateLimitStore } : {}) });

  app.use(async (c, next) => {
    const id = checks.requestId(c.req.header("x-request-id"));
    c.set("requestId", id);
    c.header("X-Request-Id", id);
    const started = performance.now();
    await next();
    checks.logRequest({ method: c.req.method, path: c.req.path, status: c.res.status, duration_ms: Math.round(performance.now() - started), request_id: id });
  });
  // Before anything else looks at the request: only this machine's names (and configured ones) are served.
  app.use(async (c, next) => {
    if (checks.isHealth(c.req.path)) return next();
    // Under node the URL is built from the Host header; app.request() has only the URL.
    const failure = checks.hostOrigin(c.req.header("host") ?? new URL(c.req.url).host, c.req.header("origin"));
    if (failure) throw failure;
    await next();
  });
  app.use(async (c, next) => {
    // Headers are set before the response exists (touching c.res.headers afterwards would materialise it).
    c.header("API-Version", "v1");
    const failure = checks.acceptVersion(c.req.header("accept-version"));
    if (failure) throw failure;
    await next();
  });
  app.use(bearerAuth(checks.bearer, deps.http.trustProxy));
  app.use(rateLimit({ ...checks.rate, trustProxy: deps.http.trustProxy }));
  app.use(bodyLimit({ maxBytes: deps.http.maxBodyBytes }));
  // Only the routes that run model work need an abort signal (and its timeout).
  const signal = requestSignal(checks.signals);
  app.use("/agent_intent", signal);
  app.use("/v1/tools/*", signal);
  app.use("/v1/methods/*", signal);

  app.route("/", healthRoutes(catalog, { checkDatabase: () => checkDatabase(deps.engine.store.db) }));
  app.route("/", intentRoutes(catalog, { decider: deps.decider, jobs: deps.jobs, abortCanceled: deps.abortCanceled ?? (() => {}) }));
  app.route("/", workflowRoutes(catalog, { ids: deps.ids, telemetry: deps.telemetry }));
  // Every call is the token holder's (or anonymous without a token): what a call creates may be bound to it.
  const caller = restCallerFor(deps.http.apiToken);
  app.route("/", toolRoutes(catalog, { engine: deps.engine, logger: deps.logger, ...(caller !== undefined ? { caller } : {}) }));
  app.route("/", sessionRoutes(catalog, { engine: deps.engine }));
  app.route("/", sessionExportRoutes(catalog, { engine: deps.engine, logger: deps.logger }));
  // Capabilities, protocol methods and every module's operations (e.g. /v1/self-improvement/*), generically.
  app.route("/", moduleRoutes(catalog, { engine: deps.engine, ...(caller !== undefined ? { caller } : {}) }));
  app.route(
    "/",
    docsRoutes(catalog, {
      title: "Deliberate HTTP API",
      version: deps.version,
      description:
        "Agent next-action intents (sync, async with callbacks, cancel), guided workflow transitions, and every Deliberate reasoning tool over REST. Errors share one body: {status: \"error\", error: {code, message, issues?, hint?, retryable}, request_id}.",
      bearerAuth: deps.http.apiToken !== undefined,
    }),
  );

  // Mounted only when its browser files are there (dist/browser once built); main.ts advertises it on the same condition.
  if (findViewerAssetsDirectory() !== undefined) {
    const viewer = createEngineViewer(deps.engine, {
      basePath: viewerPath,
      ...(deps.http.apiToken !== undefined ? { token: deps.http.apiToken } : {}),
      onError: (error) => deps.logger.error("viewer failed", { error }),
    });
    app.all(viewerPath, async (c) => (await viewer(c.req.raw)) ?? c.notFound());
    app.all(`${viewerPath}/*`, async (c) => (await viewer(c.req.raw)) ?? c.notFound());
  }

  app.notFound((c) => {
    const failure = new DeliberateError({
      code: "NOT_FOUND",
      message: `No route for ${c.req.method} ${c.req.path}.`,
      hint: "See GET /docs or GET /openapi.json for the endpoints.",
    });
    const { status, body } = toErrorResponse(failure, c.get("requestId"));
    return c.json(body, status as 404);
  });

  app.onError((error, c) => {
    const { status, headers, body } = checks.errorAnswer(error, { requestId: c.get("requestId"), path: c.req.path, timedOut: c.get("timedOut")?.() ?? false });
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return c.json(body, status as 400);
  });

  return app;
}

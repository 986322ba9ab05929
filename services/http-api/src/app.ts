import { DeliberateError } from "@deliberate/contracts";
import type { DeliberateEngine, IdGenerator } from "@deliberate/engine";
import type { SelfImprovementControl } from "@deliberate/self-improvement";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import type { AppEnv } from "./app-env.ts";
import type { HttpSettings } from "./config.ts";
import { HttpError, toErrorResponse } from "./errors.ts";
import type { IntentDecider } from "./intent/decide-intent.ts";
import type { Logger } from "./logger.ts";
import { bearerAuth } from "./middleware/bearer-auth.ts";
import { bodyLimit } from "./middleware/body-limit.ts";
import { originGuard } from "./middleware/origin-guard.ts";
import { type RateLimitStore, rateLimit } from "./middleware/rate-limit.ts";
import { requestSignal } from "./middleware/request-signal.ts";
import { createOperationCatalog } from "./openapi/operation.ts";
import type { AgentIntentJobs } from "./queue/agent-intent-jobs.ts";
import { docsRoutes } from "./routes/docs.routes.ts";
import { healthRoutes } from "./routes/health.routes.ts";
import { intentRoutes } from "./routes/intent.routes.ts";
import { moduleRoutes } from "./routes/module.routes.ts";
import { selfImprovementRoutes } from "./routes/self-improvement.routes.ts";
import { sessionRoutes } from "./routes/session.routes.ts";
import { toolRoutes } from "./routes/tools.routes.ts";
import { workflowRoutes } from "./routes/workflow.routes.ts";
import { createEngineViewer } from "@deliberate/viewer";
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
  /** The self-improvement loop's operations, when the service composes that module (mounted under /v1/self-improvement). */
  selfImprovement?: SelfImprovementControl;
}

const healthPaths = new Set(["/healthz", "/health"]);
const publicPaths = new Set([...healthPaths, "/openapi.json", "/docs"]);
/** Where the session viewer is served. */
export const viewerPath = "/ui";
/** The documented Accept-Version values (exactly; omit the header for the default). */
const supportedVersions: ReadonlySet<string> = new Set(["v1"]);

/**
 * The HTTP API as a Hono app: request id, version check, bearer auth, rate
 * limit, body limit and request timeout, then the sub-apps composed with
 * `app.route()`. Every error leaves through one handler that maps its code to
 * a status (`httpStatusByCode`) with the JSON error body.
 */
export function createApp(deps: AppDependencies): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const catalog = createOperationCatalog();

  app.use(requestId({ generator: () => deps.ids.next("req") }));
  app.use(async (c, next) => {
    const started = performance.now();
    await next();
    const fields = { method: c.req.method, path: c.req.path, status: c.res.status, duration_ms: Math.round(performance.now() - started), request_id: c.get("requestId") };
    if (healthPaths.has(c.req.path)) deps.logger.debug("request", fields);
    else deps.logger.info("request", fields);
  });
  // Before anything else looks at the request: only this machine's names (and configured ones) are served.
  app.use(originGuard({ allowedHosts: deps.http.allowedHosts, allowedOrigins: deps.http.allowedOrigins, skip: (path) => healthPaths.has(path) }));
  app.use(async (c, next) => {
    // Headers are set before the response exists (touching c.res.headers afterwards would materialise it).
    c.header("API-Version", "v1");
    const version = c.req.header("accept-version");
    if (version !== undefined && !supportedVersions.has(version)) {
      throw new HttpError({
        code: "UNSUPPORTED_VERSION",
        message: `Accept-Version "${version.slice(0, 40)}" is not supported.`,
        hint: `Send Accept-Version: ${[...supportedVersions].join(" or ")} exactly (or omit the header).`,
      });
    }
    await next();
  });
  // The viewer's pages and assets hold no data; its data endpoints (/ui/api/*) take the token here, throttled like every route.
  const isViewerPage = (path: string) => path === viewerPath || (path.startsWith(`${viewerPath}/`) && !path.startsWith(`${viewerPath}/api/`));
  app.use(
    bearerAuth({
      token: deps.http.apiToken,
      isPublic: (path) => publicPaths.has(path) || path.startsWith("/docs/") || isViewerPage(path),
      failureLimit: deps.http.authFailureLimit,
      failureWindowMs: deps.http.authFailureWindowMs,
      trustProxy: deps.http.trustProxy,
    }),
  );
  app.use(
    rateLimit({
      limit: deps.http.rateLimit,
      windowMs: deps.http.rateWindowMs,
      trustProxy: deps.http.trustProxy,
      skip: (path) => healthPaths.has(path),
      ...(deps.rateLimitStore ? { store: deps.rateLimitStore } : {}),
      onStoreError: (error) => deps.logger.warn("rate limit store failed; request let through", { error }),
    }),
  );
  app.use(bodyLimit({ maxBytes: deps.http.maxBodyBytes }));
  // Only the routes that run model work need an abort signal (and its timer).
  const signal = requestSignal({ timeoutMs: deps.http.requestTimeoutMs });
  app.use("/agent_intent", signal);
  app.use("/v1/tools/*", signal);
  app.use("/v1/methods/*", signal);

  app.route("/", healthRoutes(catalog));
  app.route("/", intentRoutes(catalog, { decider: deps.decider, jobs: deps.jobs, abortCanceled: deps.abortCanceled ?? (() => {}) }));
  app.route("/", workflowRoutes(catalog, { ids: deps.ids, telemetry: deps.telemetry }));
  app.route("/", toolRoutes(catalog, { engine: deps.engine, logger: deps.logger }));
  app.route("/", sessionRoutes(catalog, { engine: deps.engine }));
  app.route("/", moduleRoutes(catalog, { engine: deps.engine }));
  if (deps.selfImprovement) app.route("/", selfImprovementRoutes(catalog, { control: deps.selfImprovement }));
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

  const viewer = createEngineViewer(deps.engine, {
    basePath: viewerPath,
    ...(deps.http.apiToken !== undefined ? { token: deps.http.apiToken } : {}),
    onError: (error) => deps.logger.error("viewer failed", { error }),
  });
  app.all(viewerPath, async (c) => (await viewer(c.req.raw)) ?? c.notFound());
  app.all(`${viewerPath}/*`, async (c) => (await viewer(c.req.raw)) ?? c.notFound());

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
    let failure: unknown = error;
    const timedOut = c.get("timedOut");
    if (timedOut?.() && (!DeliberateError.isInstance(error) || error.code === "CANCELLED")) {
      failure = new HttpError({
        code: "REQUEST_TIMEOUT",
        message: `The request took longer than ${deps.http.requestTimeoutMs} ms; its work was stopped.`,
        hint: "Raise REASONING_API_REQUEST_TIMEOUT_MS, ask for less, or use /agent_intent_async.",
        retryable: true,
      });
    } else if (error instanceof HTTPException) {
      failure = new DeliberateError({ code: "INVALID_INPUT", message: error.message || "Bad request." });
    }
    const { status, headers, body, unexpected } = toErrorResponse(failure, c.get("requestId"));
    if (unexpected) deps.logger.error("request failed unexpectedly", { error_id: unexpected.errorId, error, request_id: c.get("requestId"), path: c.req.path });
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    return c.json(body, status as 400);
  });

  return app;
}

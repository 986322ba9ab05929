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
import type { RateLimitStore } from "./middleware/rate-limit.ts";
import { checksMiddleware, honoErrorResponse } from "./pipeline/checks-middleware.ts";
import { createOperationTable, type OperationTable } from "./pipeline/operation-table.ts";
import { type RequestCheck, requestChecks } from "./pipeline/request-checks.ts";
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
  /** The request checks and their state; default new ones from `http`, `ids`, `logger` and `rateLimitStore`. */
  checks?: HttpChecks;
}

export { viewerPath };

/** The app and what the dispatcher derives its direct answers from: the operation table and the request checks. */
export interface ComposedApp {
  app: Hono<AppEnv>;
  table: OperationTable;
  checks: HttpChecks;
  /** The request checks in order (`requestChecks`), run by the app's middleware and by the dispatcher. */
  checkList: readonly RequestCheck[];
}

/**
 * The HTTP API as a Hono app: request id, Host/Origin, version check, bearer auth,
 * rate limit, body limit and request timeout (one ordered list, `requestChecks`),
 * then the route files, each adding its operations to one operation table. Every
 * error leaves through one handler that maps its code to a status (`httpStatusByCode`)
 * with the JSON error body.
 */
export function createApp(deps: AppDependencies): Hono<AppEnv> {
  return composeApp(deps).app;
}

/** {@link createApp}, with the table and checks the service's dispatcher answers from (`createDispatcher`). */
export function composeApp(deps: AppDependencies): ComposedApp {
  const app = new Hono<AppEnv>();
  const table = createOperationTable();
  const checks =
    deps.checks ??
    createHttpChecks({
      http: deps.http,
      ids: deps.ids,
      logger: deps.logger,
      ...(deps.rateLimitStore ? { rateLimitStore: deps.rateLimitStore } : {}),
    });
  const checkList = requestChecks(checks);
  app.use(checksMiddleware(checks, checkList));

  app.route("/", healthRoutes(table, { checkDatabase: () => checkDatabase(deps.engine.store.db) }));
  app.route(
    "/",
    intentRoutes(table, { decider: deps.decider, jobs: deps.jobs, abortCanceled: deps.abortCanceled ?? (() => {}) }),
  );
  app.route("/", workflowRoutes(table, { ids: deps.ids, telemetry: deps.telemetry }));
  // Every call is the token holder's (or anonymous without a token): what a call creates may be bound to it.
  const caller = restCallerFor(deps.http.apiToken);
  app.route(
    "/",
    toolRoutes(table, { engine: deps.engine, logger: deps.logger, ...(caller !== undefined ? { caller } : {}) }),
  );
  app.route("/", sessionRoutes(table, { engine: deps.engine }));
  app.route("/", sessionExportRoutes(table, { engine: deps.engine, logger: deps.logger }));
  // Capabilities, protocol methods and every module's operations (e.g. /v1/self-improvement/*), generically.
  app.route("/", moduleRoutes(table, { engine: deps.engine, ...(caller !== undefined ? { caller } : {}) }));
  app.route(
    "/",
    docsRoutes(table, {
      title: "Deliberate HTTP API",
      version: deps.version,
      description:
        'Agent next-action intents (sync, async with callbacks, cancel), guided workflow transitions, and every Deliberate reasoning tool over REST. Errors share one body: {status: "error", error: {code, message, issues?, hint?, retryable}, request_id}.',
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

  app.onError((error, c) => honoErrorResponse(c, checks, error));

  return { app, table, checks, checkList };
}

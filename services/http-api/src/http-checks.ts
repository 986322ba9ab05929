import { DeliberateError } from "@deliberate/contracts";
import type { IdGenerator } from "@deliberate/engine";
import { HTTPException } from "hono/http-exception";
import type { HttpSettings } from "./config.ts";
import { type ErrorResponse, HttpError, toErrorResponse } from "./errors.ts";
import { type Logger, logLevels } from "./logger.ts";
import { type BearerCheck, createBearerCheck } from "./middleware/bearer-auth.ts";
import { createHostOriginCheck } from "./middleware/origin-guard.ts";
import { createRateLimitCheck, type RateLimitStore } from "./middleware/rate-limit.ts";
import { createRequestSignals } from "./middleware/request-signal.ts";

export const healthPaths: ReadonlySet<string> = new Set(["/healthz", "/health", "/readyz"]);
const publicPaths = new Set([...healthPaths, "/openapi.json", "/docs"]);
/** Where the session viewer is served. */
export const viewerPath = "/ui";
const isViewerPage = (path: string) =>
  path === viewerPath || (path.startsWith(`${viewerPath}/`) && !path.startsWith(`${viewerPath}/api/`));
/** The documented Accept-Version values (exactly; omit the header for the default). */
const supportedVersions: ReadonlySet<string> = new Set(["v1"]);

/** The request line fields of the request log. */
export interface RequestLogFields {
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  request_id: string;
}

/**
 * What the request checks are made of, as plain functions over header values,
 * with their state (auth failure counts, rate-limit counts, request timeouts):
 * `requestChecks` (src/pipeline) puts them in the one order every request
 * passes them, through Hono or answered on `node:http` directly.
 */
export interface HttpChecks {
  readonly settings: HttpSettings;
  /** The request id: the client's `X-Request-Id` when it is short and plain (as hono/request-id takes it), else a new one. */
  requestId(header: string | undefined): string;
  /** The request log line (debug for health probes). */
  logRequest(fields: RequestLogFields): void;
  /** 403 for a foreign Host or Origin (health paths skip it). */
  hostOrigin(host: string | undefined, origin: string | undefined): HttpError | undefined;
  /** 400 for an Accept-Version other than the documented ones. */
  acceptVersion(version: string | undefined): HttpError | undefined;
  readonly bearer: BearerCheck;
  readonly rate: ReturnType<typeof createRateLimitCheck>;
  readonly signals: ReturnType<typeof createRequestSignals>;
  isHealth(path: string): boolean;
  /** Whether the route runs model work: it gets an abort signal and the request timeout (/agent_intent, /v1/tools/*, /v1/methods/*). */
  needsSignal(path: string): boolean;
  /** Status, headers and body of the error answer (504 when the request timed out); unexpected errors are logged with their error id. */
  errorAnswer(
    error: unknown,
    context: { requestId: string; path: string; timedOut: boolean },
  ): { status: number; headers: Record<string, string>; body: ErrorResponse };
}

export interface HttpChecksOptions {
  http: HttpSettings;
  ids: IdGenerator;
  logger: Logger;
  /** Where the rate limiter counts; default this process's memory. */
  rateLimitStore?: RateLimitStore;
  /** The service's clock in epoch milliseconds, for the rate limit's and the token lockout's windows; default `Date.now`. */
  now?: () => number;
}

export function createHttpChecks(options: HttpChecksOptions): HttpChecks {
  const { http, logger } = options;
  const hostOrigin = createHostOriginCheck({ allowedHosts: http.allowedHosts, allowedOrigins: http.allowedOrigins });
  return {
    settings: http,
    requestId(header) {
      if (!header || header.length > 255 || /[^\w\-=]/.test(header)) return options.ids.next("req");
      return header;
    },
    logRequest(fields) {
      const level = healthPaths.has(fields.path) ? "debug" : "info";
      // Filtered out (LOG_LEVEL=warn, as under load): nothing is copied.
      if (logLevels.indexOf(level) < logLevels.indexOf(logger.level)) return;
      logger[level]("request", { ...fields });
    },
    hostOrigin,
    acceptVersion(version) {
      if (version === undefined || supportedVersions.has(version)) return undefined;
      return new HttpError({
        code: "UNSUPPORTED_VERSION",
        message: `Accept-Version "${version.slice(0, 40)}" is not supported.`,
        hint: `Send Accept-Version: ${[...supportedVersions].join(" or ")} exactly (or omit the header).`,
      });
    },
    // The viewer's pages and assets hold no data; its data endpoints (/ui/api/*) take the token here, throttled like every route.
    bearer: createBearerCheck({
      token: http.apiToken,
      isPublic: (path) => publicPaths.has(path) || path.startsWith("/docs/") || isViewerPage(path),
      failureLimit: http.authFailureLimit,
      failureWindowMs: http.authFailureWindowMs,
      ...(options.now ? { now: options.now } : {}),
    }),
    rate: createRateLimitCheck({
      limit: http.rateLimit,
      windowMs: http.rateWindowMs,
      skip: (path) => healthPaths.has(path),
      ...(options.rateLimitStore ? { store: options.rateLimitStore } : {}),
      ...(options.now ? { now: options.now } : {}),
      onStoreError: (error) => logger.warn("rate limit store failed; request let through", { error }),
    }),
    signals: createRequestSignals({ timeoutMs: http.requestTimeoutMs }),
    isHealth: (path) => healthPaths.has(path),
    needsSignal: (path) => path === "/agent_intent" || path.startsWith("/v1/tools/") || path.startsWith("/v1/methods/"),
    errorAnswer(error, context) {
      let failure: unknown = error;
      if (context.timedOut && (!DeliberateError.isInstance(error) || error.code === "CANCELLED")) {
        failure = new HttpError({
          code: "REQUEST_TIMEOUT",
          message: `The request took longer than ${http.requestTimeoutMs} ms; its work was stopped.`,
          hint: "Raise REASONING_API_REQUEST_TIMEOUT_MS, ask for less, or use /agent_intent_async.",
          retryable: true,
        });
      } else if (error instanceof HTTPException) {
        failure = new DeliberateError({ code: "INVALID_INPUT", message: error.message || "Bad request." });
      }
      const { status, headers, body, unexpected } = toErrorResponse(failure, context.requestId);
      if (unexpected && status === 503)
        logger.warn("request refused: the database is unavailable", {
          error_id: unexpected.errorId,
          error,
          request_id: context.requestId,
          path: context.path,
        });
      else if (unexpected)
        logger.error("request failed unexpectedly", {
          error_id: unexpected.errorId,
          error,
          request_id: context.requestId,
          path: context.path,
        });
      return { status, headers, body };
    },
  };
}

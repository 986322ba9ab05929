import type { ServerResponse } from "node:http";
import type { HttpChecks } from "../http-checks.ts";
import { payloadTooLarge } from "../middleware/body-limit.ts";
import type { RequestSignal } from "../middleware/request-signal.ts";

/** A request as the checks see it: from a Hono context (`checksMiddleware`) or a node request (`createDispatcher`). */
export interface CheckedRequest {
  readonly path: string;
  /** A request header (lower-case name). */
  header(name: string): string | undefined;
  /** The client's address, as the rate limit and the auth-failure throttle count it. */
  client(): string;
  /** The node response, to notice a client that goes away (absent under `app.request()`). */
  readonly outgoing: ServerResponse | undefined;
}

/** What the checks leave for the answer and the handler. */
export interface RequestState {
  requestId: string;
  /** Headers every answer to the request carries, success or error (lower-case names, in the order set). */
  readonly headers: Record<string, string>;
  /** The request's abort signal and timeout, on routes that run model work (disarm with `done()` once answered). */
  signal: RequestSignal | undefined;
}

/** One check: throws (an `HttpError`) to refuse the request; may wait (the rate limit's store). */
export type RequestCheck = (request: CheckedRequest, state: RequestState) => void | Promise<void>;

export function newRequestState(): RequestState {
  return { requestId: "", headers: {}, signal: undefined };
}

/** Copies `headers` onto an answer's, names in lower case (so a name set twice in two spellings is sent once). */
export function setHeaders(target: Record<string, string>, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) target[name.toLowerCase()] = headers[name] as string;
}

/**
 * Every check a request passes, in order — the one list both ways in run (`checksMiddleware` for Hono,
 * `createDispatcher` for the requests answered on `node:http` directly), over the shared check functions
 * and their state (`HttpChecks`: auth-failure counts, rate-limit counts, request timeouts). The order is
 * what a client sees: a foreign Host is refused before the version is looked at, and its 403 carries no
 * API-Version; a missing token before the rate limit counts the request.
 */
export function requestChecks(checks: HttpChecks): readonly RequestCheck[] {
  const maxBodyBytes = checks.settings.maxBodyBytes;
  return [
    function requestId(request, state) {
      state.requestId = checks.requestId(request.header("x-request-id"));
      state.headers["x-request-id"] = state.requestId;
    },
    // Before anything else looks at the request: only this machine's names (and configured ones) are served.
    function hostAndOrigin(request) {
      if (checks.isHealth(request.path)) return;
      const failure = checks.hostOrigin(request.header("host"), request.header("origin"));
      if (failure) throw failure;
    },
    function acceptVersion(request, state) {
      state.headers["api-version"] = "v1";
      const failure = checks.acceptVersion(request.header("accept-version"));
      if (failure) throw failure;
    },
    function bearerToken(request) {
      if (checks.bearer.isOpen(request.path)) return;
      const failure = checks.bearer.check(request.header("authorization"), request.client());
      if (failure) throw failure;
    },
    function rateLimit(request, state) {
      if (!checks.rate.applies(request.path)) return;
      return checks.rate.count(request.client()).then((verdict) => {
        // No verdict: the store failed and the request is let through (logged by the check).
        if (verdict === undefined) return;
        setHeaders(state.headers, verdict.headers);
        if (verdict.failure) throw verdict.failure;
      });
    },
    // A declared length over the limit is refused before anything is read; a chunked body while it is read.
    function bodyLimit(request) {
      const declared = request.header("content-length");
      if (declared !== undefined && Number(declared) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
    },
    // Only the routes that run model work need an abort signal (and its timeout).
    function signalAndTimeout(request, state) {
      if (checks.needsSignal(request.path)) state.signal = checks.signals.open(request.outgoing);
    },
  ];
}

/** Runs the checks in order; synchronous until a check waits (then the rest run after it). */
export function runChecks(
  list: readonly RequestCheck[],
  request: CheckedRequest,
  state: RequestState,
  from = 0,
): Promise<void> | undefined {
  for (let index = from; index < list.length; index += 1) {
    const pending = (list[index] as RequestCheck)(request, state);
    if (pending !== undefined) return pending.then(() => runChecks(list, request, state, index + 1));
  }
  return undefined;
}

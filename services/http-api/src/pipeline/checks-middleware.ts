import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import type { HttpChecks } from "../http-checks.ts";
import { clientAddress } from "../middleware/rate-limit.ts";
import { type CheckedRequest, newRequestState, type RequestCheck, runChecks } from "./request-checks.ts";

/** The error answer of the app (`app.onError` and a refused check alike): status, headers and the JSON error body. */
export function honoErrorResponse(c: Context<AppEnv>, checks: HttpChecks, error: unknown): Response {
  const { status, headers, body } = checks.errorAnswer(error, {
    requestId: c.get("requestId"),
    path: c.req.path,
    timedOut: c.get("timedOut")?.() ?? false,
  });
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(body, status as 400);
}

function checkedRequestOf(c: Context<AppEnv>, trustProxy: boolean): CheckedRequest {
  return {
    path: c.req.path,
    // Host: under node, the canonical form the server made of it (createHttpServer), as the dispatcher sees it
    // (Hono's headers come from the raw ones); app.request() has only the URL.
    header: (name) =>
      name === "host"
        ? (c.env?.incoming?.headers.host ?? c.req.header(name) ?? new URL(c.req.url).host)
        : c.req.header(name),
    client: () => clientAddress(c, trustProxy),
    outgoing: c.env?.outgoing,
  };
}

/**
 * The request checks (`requestChecks`) as the Hono app's one middleware, and the request log line: a
 * refused request is answered here with the app's error answer; an accepted one goes on to its route
 * with `requestId`, `signal`, `timedOut` and `maxBodyBytes` set.
 */
export function checksMiddleware(checks: HttpChecks, list: readonly RequestCheck[]): MiddlewareHandler<AppEnv> {
  const { trustProxy, maxBodyBytes } = checks.settings;
  return async (c, next) => {
    const started = performance.now();
    const state = newRequestState();
    let refusal: { error: unknown } | undefined;
    try {
      const pending = runChecks(list, checkedRequestOf(c, trustProxy), state);
      if (pending !== undefined) await pending;
    } catch (error) {
      refusal = { error };
    }
    c.set("requestId", state.requestId);
    c.set("maxBodyBytes", maxBodyBytes);
    // Headers are set before the response exists (touching c.res.headers afterwards would materialise it).
    for (const [name, value] of Object.entries(state.headers)) c.header(name, value);
    const signal = state.signal;
    if (signal !== undefined) {
      c.set("signal", signal.signal);
      c.set("timedOut", () => signal.timedOut());
    }
    if (refusal !== undefined) c.res = honoErrorResponse(c, checks, refusal.error);
    else {
      try {
        await next();
      } finally {
        // A stream keeps working after the handler returns: its timeout stays armed.
        if (!c.get("streaming")) signal?.done();
      }
    }
    checks.logRequest({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      duration_ms: Math.round(performance.now() - started),
      request_id: state.requestId,
    });
  };
}

import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * Gives each request a signal that aborts when the client disconnects or after
 * `timeoutMs`; handlers pass it to the engine and models so the work stops too.
 */
export function requestSignal(options: { timeoutMs: number }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`request timed out after ${options.timeoutMs} ms`)), options.timeoutMs);
    const signals = [timeout.signal];
    // Under @hono/node-server the request's signal aborts when the client goes away.
    if (c.env?.incoming) signals.push(c.req.raw.signal);
    c.set("signal", signals.length === 1 ? timeout.signal : AbortSignal.any(signals));
    c.set("timedOut", () => timeout.signal.aborted);
    timer.unref();
    try {
      await next();
    } finally {
      // A stream keeps working after the handler returns: its timeout stays armed.
      if (!c.res.headers.get("content-type")?.startsWith("text/event-stream")) clearTimeout(timer);
    }
  };
}

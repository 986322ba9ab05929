import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";

/**
 * Gives each request a signal that aborts when the client disconnects or after
 * `timeoutMs`; handlers pass it to the engine and models so the work stops too.
 */
export function requestSignal(options: { timeoutMs: number }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error(`request timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    timer.unref();
    // Under @hono/node-server: the client went away before the response was sent.
    // (Watching the node response avoids building a full fetch Request for its signal.)
    const outgoing = c.env?.outgoing;
    outgoing?.once("close", () => {
      if (!outgoing.writableFinished) controller.abort(new Error("client closed the connection"));
    });
    c.set("signal", controller.signal);
    c.set("timedOut", () => timedOut);
    try {
      await next();
    } finally {
      // A stream keeps working after the handler returns: its timeout stays armed.
      if (!c.get("streaming")) clearTimeout(timer);
    }
  };
}

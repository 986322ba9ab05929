import type { HttpBindings } from "@hono/node-server";

/** Per-request values the middleware provides to handlers. */
export interface AppVariables {
  requestId: string;
  /**
   * Aborted when the client disconnects or the request times out; pass to the
   * engine and models. Set on the routes that run model work (/agent_intent, /v1/tools/*).
   */
  signal: AbortSignal;
  /** True once the request's timeout fired (the error handler answers 504 then). */
  timedOut: () => boolean;
  /** Set by a handler that answers with a stream (the request's timeout then stays armed). */
  streaming: boolean;
  /** REASONING_API_MAX_BODY_BYTES, for reading bodies without a Content-Length. */
  maxBodyBytes: number;
}

/** The Hono environment of the app (node-server bindings are absent under app.request()). */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  Variables: AppVariables;
}

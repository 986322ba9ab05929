import { DeliberateClientError } from "../errors.ts";
import type { CallOptions, ServerDescription, Transport, TransportCallOptions } from "../transport.ts";
import { type HttpConnection, type HttpConnectionOptions, resolveHttpConnection } from "./config.ts";
import { sendHttpRequest } from "./http-request.ts";

/** Options of the REST transport: the connection settings (env `REASONING_API_*` as fallbacks). */
export type HttpTransportOptions = HttpConnectionOptions;

/** The default per-call timeout of tool calls over REST (the service's own request timeout). */
export const httpToolTimeoutMs = 120_000;

/**
 * How long a response may be cached, from its headers: `Cache-Control`
 * (`no-store`/`no-cache` -> 0, `max-age=N` -> N s) or `Expires`; null when they say nothing.
 */
export function cacheLifetimeMs(headers: Headers, now: number): number | null {
  const control = headers.get("cache-control");
  if (control) {
    const directives = control
      .toLowerCase()
      .split(",")
      .map((directive) => directive.trim());
    if (directives.includes("no-store") || directives.includes("no-cache")) return 0;
    const maxAge = directives
      .map((directive) => /^(?:s-)?max-age=(\d+)$/.exec(directive)?.[1])
      .find((value) => value !== undefined);
    if (maxAge !== undefined) return Number(maxAge) * 1000;
  }
  const expires = headers.get("expires");
  if (expires) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? 0 : Math.max(0, at - now);
  }
  return null;
}

/** The connection settings a REST transport uses (for the agent-intent client sharing them). */
export function httpConnectionOf(transport: Transport): HttpConnection | undefined {
  return (transport as { connection?: HttpConnection }).connection;
}

/**
 * The REST surface of `deliberate-api`: `POST /v1/tools/{name}`,
 * `POST /v1/methods/{method}`, `GET /v1/capabilities`. Runs wherever `fetch`
 * does (Node 20+, browsers, edge runtimes). Tool calls default to a 120 s
 * timeout (`timeoutMs` or `REASONING_API_TIMEOUT_MS` override it).
 */
export function createHttpTransport(
  options: HttpTransportOptions = {},
): Transport & { readonly connection: HttpConnection } {
  const connection = resolveHttpConnection(options, { timeoutMs: httpToolTimeoutMs });
  return {
    surface: "http",
    endpoint: connection.baseUrl,
    connection,
    async callTool(name: string, input: unknown, callOptions: TransportCallOptions = {}) {
      const path = `/v1/tools/${encodeURIComponent(name)}`;
      const response = await sendHttpRequest(
        connection,
        { method: "POST", path, body: input ?? {}, idempotent: callOptions.idempotent ?? false, what: `POST ${path}` },
        callOptions,
      );
      return response.body;
    },
    async callMethod(method: string, params: Record<string, unknown>, callOptions: TransportCallOptions = {}) {
      const path = `/v1/methods/${method.split("/").map(encodeURIComponent).join("/")}`;
      const response = await sendHttpRequest(
        connection,
        { method: "POST", path, body: params, idempotent: callOptions.idempotent ?? false, what: `POST ${path}` },
        callOptions,
      );
      return response.body;
    },
    async describe(callOptions: CallOptions = {}): Promise<ServerDescription> {
      let capabilities: Record<string, unknown> = {};
      let ttlMs: number | null = null;
      try {
        const response = await sendHttpRequest(
          connection,
          { method: "GET", path: "/v1/capabilities", idempotent: true, what: "GET /v1/capabilities" },
          callOptions,
        );
        if (typeof response.body !== "object" || response.body === null || Array.isArray(response.body)) {
          throw new DeliberateClientError({
            code: "MALFORMED_RESPONSE",
            message: "GET /v1/capabilities did not answer an object of capability objects.",
          });
        }
        capabilities = response.body as Record<string, unknown>;
        ttlMs = cacheLifetimeMs(response.headers, Date.now());
      } catch (error) {
        // A service composing no module with capabilities has no such route: it advertises nothing.
        if (!(DeliberateClientError.isInstance(error) && error.code === "NOT_FOUND")) throw error;
      }
      return {
        surface: "http",
        endpoint: connection.baseUrl,
        protocolVersion: connection.version,
        server: null,
        capabilities,
        ttlMs,
      };
    },
    async ping(callOptions: CallOptions = {}) {
      await sendHttpRequest(
        connection,
        { method: "GET", path: "/healthz", idempotent: true, what: "GET /healthz" },
        callOptions,
      );
    },
    protocolVersion: () => connection.version,
    async close() {},
  };
}

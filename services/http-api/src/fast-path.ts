import type { IncomingMessage, ServerResponse } from "node:http";
import { agentIntentRequestSchema, parseInput } from "@deliberate/contracts";
import type { DeliberateEngine } from "@deliberate/engine";
import type { HttpChecks } from "./http-checks.ts";
import type { IntentDecider } from "./intent/decide-intent.ts";
import { clientAddressOf } from "./middleware/rate-limit.ts";
import type { RequestSignal } from "./middleware/request-signal.ts";
import { parseJsonText, readIncomingText, unsupportedMediaType } from "./routes/read-json.ts";
import { toolInput } from "./routes/tools.routes.ts";

export interface FastPathOptions {
  /** The same checks the Hono app runs (and their state: auth failures, rate-limit counts, timeouts). */
  checks: HttpChecks;
  engine: DeliberateEngine;
  decider: IntentDecider;
  /** The caller identity of every call (`restCallerFor`); absent: anonymous. */
  caller?: string;
}

/** Answers a request, or returns false (having touched nothing) so that the Hono app answers it. */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean;

type Route = { kind: "health" } | { kind: "intent" } | { kind: "tool"; name: string };

/** A header's value (only set-cookie is ever a list, and repeated headers never get here). */
const one = (value: string | string[] | undefined): string | undefined => (typeof value === "string" ? value : undefined);

/** How many distinct Host values the host verdicts remember (cleared when full). */
const hostCacheSize = 64;

/**
 * The hottest routes answered on `node:http` directly, below Hono: `GET
 * /healthz` (and `/health`), `POST /agent_intent`, and `POST /v1/tools/<tool>`
 * without `Accept: text/event-stream`. The Hono app's per-request
 * materialisation (a fetch Request and Response, the router, the middleware
 * chain) is what it skips; every check is the same function the app's
 * middleware calls (`HttpChecks`), in the same order, with the same state.
 *
 * The request is left to Hono, untouched, whenever anything is unusual before
 * a counted check: another path or method, a query string, a repeated header
 * (Hono joins them), no or an odd Host, a refused Host or Origin, an
 * Accept-Version refused, a missing or wrong token (Hono counts the failure),
 * a declared body over the limit, a body that is not JSON, a stream asked for.
 * Past the rate limit's count (stateful) the fast path answers everything
 * itself: the 429, a body over the limit while read, malformed or too deep
 * JSON, invalid input, the tool's or decision's own errors, a timeout — each
 * through the app's error answer (`checks.errorAnswer`) and logged alike.
 */
export function createFastPath(options: FastPathOptions): FastPath {
  const { checks, engine, decider, caller } = options;
  const { settings } = checks;
  const tools = new Set(engine.tools.map((tool) => tool.name));
  const routes = new Map<string, Route>([
    ["/healthz", { kind: "health" }],
    ["/health", { kind: "health" }],
    ["/agent_intent", { kind: "intent" }],
    ...[...tools].map((name): [string, Route] => [`/v1/tools/${name}`, { kind: "tool", name }]),
  ]);

  // @hono/node-server builds the request URL from Host and answers 400 itself when that changes the name.
  const nodeServerTakes = new Map<string, boolean>();
  const hostAllowed = new Map<string, boolean>();
  function remembered(cache: Map<string, boolean>, host: string, decide: () => boolean): boolean {
    let verdict = cache.get(host);
    if (verdict === undefined) {
      verdict = decide();
      if (cache.size >= hostCacheSize) cache.clear();
      cache.set(host, verdict);
    }
    return verdict;
  }
  const takenByNodeServer = (host: string) =>
    remembered(nodeServerTakes, host, () => {
      try {
        const { hostname } = new URL(`http://${host}/`);
        return hostname.length === host.length || hostname === host.replace(/:\d+$/, "");
      } catch {
        return false;
      }
    });

  function send(response: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
    // Hono's answer: header names in lower case, sorted, then the length @hono/node-server adds.
    const names = Object.keys(headers).sort();
    const head: Record<string, string | number> = {};
    for (const name of names) head[name] = headers[name] as string;
    head["Content-Length"] = Buffer.byteLength(body);
    response.writeHead(status, head);
    response.end(body);
  }

  async function answer(request: IncomingMessage, response: ServerResponse, route: Route, path: string, client: string, requestId: string, started: number): Promise<void> {
    const headers: Record<string, string> = { "x-request-id": requestId, "api-version": "v1" };
    let status = 200;
    let body: string;
    let opened: RequestSignal | undefined;
    try {
      if (route.kind !== "health" && checks.rate.applies(path)) {
        const verdict = await checks.rate.count(client);
        if (verdict !== undefined) {
          for (const [name, value] of Object.entries(verdict.headers)) headers[name.toLowerCase()] = value;
          if (verdict.failure) throw verdict.failure;
        }
      }
      let result: unknown;
      if (route.kind === "health") result = { status: "ok" };
      else {
        opened = checks.signals.open(response);
        try {
          const value = parseJsonText(await readIncomingText(request, settings.maxBodyBytes));
          // The signal is made only if the work asks for it (see createRequestSignals).
          const signalOf = opened;
          if (route.kind === "intent") {
            result = await decider.decide(parseInput(agentIntentRequestSchema, value, "agent_intent"), {
              get signal() {
                return signalOf.signal;
              },
              requestId,
            });
          } else {
            result = await engine.invoke(route.name, toolInput(route.name, value), {
              get signal() {
                return signalOf.signal;
              },
              ...(caller !== undefined ? { caller } : {}),
            });
          }
        } finally {
          opened.done();
        }
      }
      headers["content-type"] = "application/json";
      body = JSON.stringify(result);
    } catch (error) {
      const failure = checks.errorAnswer(error, { requestId, path, timedOut: opened?.timedOut() ?? false });
      status = failure.status;
      for (const [name, value] of Object.entries(failure.headers)) headers[name.toLowerCase()] = value;
      headers["content-type"] = "application/json";
      body = JSON.stringify(failure.body);
    }
    send(response, status, headers, body);
    checks.logRequest({ method: request.method ?? "", path, status, duration_ms: Math.round(performance.now() - started), request_id: requestId });
  }

  return (request, response) => {
    const path = request.url ?? "";
    const route = routes.get(path);
    if (route === undefined) return false;
    if (request.method !== (route.kind === "health" ? "GET" : "POST")) return false;
    const headers = request.headers;
    // A repeated header: Hono would see the values joined.
    let count = 0;
    for (const _name in headers) count += 1;
    if (request.rawHeaders.length !== 2 * count) return false;
    const host = headers.host;
    if (host === undefined || !takenByNodeServer(host)) return false;
    if (route.kind !== "health") {
      if (!remembered(hostAllowed, host, () => checks.hostOrigin(host, undefined) === undefined)) return false;
      if (headers.origin !== undefined && checks.hostOrigin(host, headers.origin) !== undefined) return false;
    }
    if (checks.acceptVersion(one(headers["accept-version"])) !== undefined) return false;
    const client = clientAddressOf(settings.trustProxy ? one(headers["x-forwarded-for"]) : undefined, () => request.socket.remoteAddress ?? "unknown");
    if (!checks.bearer.isOpen(path) && !checks.bearer.passes(headers.authorization, client)) return false;
    const declared = headers["content-length"];
    if (declared !== undefined && Number(declared) > settings.maxBodyBytes) return false;
    if (route.kind !== "health") {
      if (unsupportedMediaType(headers["content-type"]) !== undefined) return false;
      if (route.kind === "tool" && (headers.accept ?? "").includes("text/event-stream")) return false;
    }
    const started = performance.now();
    const requestId = checks.requestId(one(headers["x-request-id"]));
    void answer(request, response, route, path, client, requestId, started).catch((error: unknown) => {
      // Only writing the answer can fail here: the connection is gone.
      response.destroy(error instanceof Error ? error : undefined);
    });
    return true;
  };
}

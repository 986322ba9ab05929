import {
  createServer as createNodeServer,
  type RequestListener,
  type Server as NodeServer,
  type ServerOptions,
} from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { createAdaptorServer } from "@hono/node-server";
import { databaseRetryAfterSeconds, isTransientDatabaseFault } from "@deliberate/base";
import {
  answerAndClose,
  canonicalizeHostHeader,
  defaultMaxBodyBytes,
  httpParseRefusal,
  isLoopbackHost,
  jsonDepthField,
  jsonDepthViolation,
  maxJsonDepth,
  type Readiness,
  rawHttpResponse,
  unsupportedCharset,
} from "@deliberate/contracts";
import { readJsonRpcValue } from "./json-rpc-message.ts";
import { newErrorId } from "./tool-result.ts";
import {
  createMcpHandler,
  isJsonContentType,
  readRequestBody,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  originValidationResponse,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { type Context, Hono } from "hono";
import type { HttpTransportConfig } from "./config.ts";
import { createAuthorizer, isAuthInfo } from "./http-auth.ts";
import type { Logger } from "./logger.ts";
import type { ViewerHandler } from "@deliberate/viewer";
import type { RunningTransport } from "./stdio-transport.ts";

/**
 * node:http options that drop slow clients: `headersTimeout` for the headers,
 * `requestTimeout` for the whole request (body included), checked every
 * `connectionsCheckingInterval` (node's default of 30 s would let a slow client
 * linger well past either limit). Responses (SSE streams) are not limited.
 */
export function receiveTimeouts(limits: { headersTimeoutMs: number; bodyTimeoutMs: number }): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

/**
 * How long an idle keep-alive connection stays open: well past the clients'
 * own idle limits (undici, behind fetch and the SDK's client, closes after
 * 4 s), so a client closes first. With node's 5 s a client whose event loop
 * was busy reused a socket the server was closing ("other side closed").
 */
export const idleKeepAliveMs = 30_000;

/** Where MCP is served. */
export const mcpPath = "/mcp";
/** Where the session viewer is served. */
export const viewerPath = "/ui";
/** Liveness endpoint: no auth, no Host check, answers `{"status":"ok"}` while the process serves. */
export const healthPath = "/healthz";
/** Readiness endpoint: no auth, no Host check; 200 while the database answers, else 503 with Retry-After. */
export const readinessPath = "/readyz";

export interface HttpTransportOptions {
  config: HttpTransportConfig;
  /** Missing or wrong tokens one client address may send per window before it gets 429 (default 10 per 5 minutes). */
  authFailures?: { limit: number; windowMs: number };
  /** Builds a server per request (the SDK's stateless serving). */
  createServer: () => McpServer;
  /** The session viewer, served at /ui behind the same Host/Origin checks and token. */
  viewer?: ViewerHandler;
  /** Resolves when the database answers (`checkDatabase`); `/readyz` answers 503 while it rejects. Absent: always ready. */
  checkDatabase?: () => Promise<void>;
  logger: Logger;
}

export interface RunningHttpTransport extends RunningTransport {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp (with the bound port when 0 was asked for). */
  url: string;
  port: number;
  /** The session viewer, when served, e.g. http://127.0.0.1:8080/ui. */
  viewerUrl?: string;
}

function jsonRpcError(status: number, code: number, message: string, id: unknown, data?: unknown): Response {
  const readable = typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
  return Response.json(
    { jsonrpc: "2.0", error: { code, message, ...(data !== undefined ? { data } : {}) }, id: readable },
    { status },
  );
}

/**
 * Reads and checks a JSON POST body once, before the SDK sees it: not JSON is
 * -32700; a message that is not JSON-RPC, or nests deeper than the limit, is
 * -32600 naming the field (`data.issues`) with the request id when readable.
 * (Batches, which 2025-03 clients may send, are checked for depth only.)
 * Returns the parsed body for the SDK, or the response to send.
 */
async function readJsonRpcBody(
  request: Request,
  maxBodyBytes: number,
): Promise<{ parsedBody: unknown } | { response: Response }> {
  const charset = unsupportedCharset(request.headers.get("content-type") ?? undefined);
  if (charset !== undefined) {
    return {
      response: jsonRpcError(415, -32000, `Unsupported Media Type: ${charset}`, null, {
        code: "INVALID_INPUT",
        issues: [{ field: "(content-type)", message: charset }],
        hint: "Send the body as UTF-8 with Content-Type: application/json (or ; charset=utf-8).",
      }),
    };
  }
  const read = await readRequestBody(request, maxBodyBytes).catch(() => undefined);
  if (read === undefined)
    return { response: jsonRpcError(400, -32700, "Parse error: the request body could not be read", null) };
  if (read.tooLarge) {
    return {
      response: jsonRpcError(
        413,
        -32000,
        `Request body larger than ${maxBodyBytes} bytes (the limit; MCP_HTTP_MAX_BODY_BYTES)`,
        null,
        { code: "INVALID_INPUT", issues: [{ field: "(body)", message: `larger than ${maxBodyBytes} bytes` }] },
      ),
    };
  }
  let parsedBody: unknown;
  try {
    parsedBody = JSON.parse(read.text ?? "");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      response: jsonRpcError(400, -32700, `Parse error: the request body is not valid JSON (${reason})`, null, {
        code: "INVALID_INPUT",
        issues: [{ field: "(body)", message: `not valid JSON: ${reason}` }],
      }),
    };
  }
  const items = Array.isArray(parsedBody) ? [] : [parsedBody];
  const tooDeep = Array.isArray(parsedBody) ? jsonDepthViolation(parsedBody) : undefined;
  if (tooDeep) {
    const field = jsonDepthField(tooDeep);
    return {
      response: jsonRpcError(
        400,
        -32600,
        `Invalid input: ${field}: nested deeper than ${maxJsonDepth} levels (the limit)`,
        null,
        {
          code: "INVALID_INPUT",
          issues: [{ field, message: `nested deeper than ${maxJsonDepth} levels (the limit)` }],
        },
      ),
    };
  }
  for (const item of items) {
    const checked = readJsonRpcValue(item);
    if ("error" in checked) {
      const { code, message, id, issues } = checked.error;
      return { response: jsonRpcError(400, code, message, id, { code: "INVALID_INPUT", issues }) };
    }
  }
  return { parsedBody };
}

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/** True when the URL's host name is this machine's loopback in any spelling; false for anything unparsable. */
function isLoopbackName(url: string | undefined): boolean {
  if (url === undefined) return false;
  try {
    const { hostname } = new URL(url);
    return isLoopbackHost(hostname.startsWith("[") ? hostname.slice(1, -1) : hostname);
  } catch {
    return false;
  }
}

/**
 * DNS-rebinding protection: a function that gives a refusal for a request from a host or origin not allowed,
 * else undefined. Loopback in any spelling passes as in the HTTP API (isLoopbackHost of @deliberate/contracts);
 * the SDK's checks take the rest.
 */
function createForeignRequestGuard(
  config: HttpTransportConfig,
  logger: Logger,
): (request: Request) => Response | undefined {
  const anyHost = config.allowedHosts.includes("*");
  const allowedHosts = [...localhostAllowedHostnames(), ...config.allowedHosts.filter((host) => host !== "*")];
  const allowedOrigins = [...localhostAllowedOrigins(), ...config.allowedOrigins];
  return (request) => {
    const host = request.headers.get("host");
    const origin = request.headers.get("origin");
    const hostRejected =
      anyHost || isLoopbackName(host === null ? undefined : `http://${host}`)
        ? undefined
        : hostHeaderValidationResponse(request, allowedHosts);
    const rejected =
      hostRejected ??
      (origin === null || isLoopbackName(origin) ? undefined : originValidationResponse(request, allowedOrigins));
    if (rejected) {
      logger.warn("HTTP request refused by Host/Origin check", {
        status: rejected.status,
        host: host ?? undefined,
        origin: origin ?? undefined,
        fix: "add the name to MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS if it is legitimate",
      });
    }
    return rejected;
  };
}

/**
 * Serves MCP over Streamable HTTP at `/mcp` (the SDK's `createMcpHandler`:
 * 2026-07-28 requests and stateless 2025-era requests), behind DNS-rebinding
 * protection (Host and Origin allowlists: loopback names plus configured
 * ones) and, when a token is configured, `Authorization: Bearer <token>`.
 */
export async function startHttpTransport(options: HttpTransportOptions): Promise<RunningHttpTransport> {
  const { config, logger } = options;
  const handler = createMcpHandler(() => options.createServer(), {
    onerror: (error) => logger.debug("MCP HTTP request rejected or failed", { error }),
  });
  const app = createHttpApp(options, handler);
  const server = await listenHttpServer(app, config);
  server.on("error", (error) => logger.error("HTTP server error", { error }));
  const port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost(config.host)}:${port}${mcpPath}`,
    ...(options.viewer ? { viewerUrl: `http://${urlHost(config.host)}:${port}${viewerPath}` } : {}),
    port,
    close: () => {
      closing ??= (async () => {
        await handler.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Streams still open (SSE) would hold close() forever.
          server.closeIdleConnections();
          setTimeout(() => server.closeAllConnections(), 1000).unref();
        });
      })();
      return closing;
    },
  };
}

/**
 * The routes: health and readiness (open), the viewer and `/mcp` behind the Host/Origin check and the throttled bearer
 * check, and JSON answers for unknown paths and failures (503 with Retry-After while the database is unavailable).
 */
function createHttpApp(options: HttpTransportOptions, handler: ReturnType<typeof createMcpHandler>): Hono {
  const { config, logger } = options;
  const refuseForeign = createForeignRequestGuard(config, logger);
  const authorize = createAuthorizer(config.token, options.authFailures ?? { limit: 10, windowMs: 5 * 60_000 }, logger);

  const app = new Hono();
  app.get(healthPath, (context) => context.json({ status: "ok" }));
  app.get(readinessPath, async (context) => {
    try {
      await options.checkDatabase?.();
      return context.json({ status: "ready", checks: { database: "ok" } } satisfies Readiness);
    } catch {
      context.header("Retry-After", String(databaseRetryAfterSeconds));
      return context.json({ status: "unavailable", checks: { database: "unavailable" } } satisfies Readiness, 503);
    }
  });
  const viewer = options.viewer;
  if (viewer) {
    // Without a token on loopback, the Host/Origin check is what keeps a rebinding page from reading sessions.
    // Its data endpoints take the same throttled token check as /mcp (its pages and assets hold no data).
    const serveViewer = async (context: Context) => {
      const request = context.req.raw;
      const rejected = refuseForeign(request);
      if (rejected) return rejected;
      if (context.req.path.startsWith(`${viewerPath}/api/`)) {
        const outcome = await authorize(context);
        if (outcome !== undefined && !isAuthInfo(outcome)) return outcome;
      }
      return (await viewer(request)) ?? context.notFound();
    };
    app.all(viewerPath, serveViewer);
    app.all(`${viewerPath}/*`, serveViewer);
  }
  app.all(mcpPath, async (context) => {
    const request = context.req.raw;
    const rejected = refuseForeign(request);
    if (rejected) return rejected;
    const outcome = await authorize(context);
    if (outcome !== undefined && !isAuthInfo(outcome)) return outcome;
    const authInfo: AuthInfo | undefined = outcome;
    // JSON bodies are parsed here, once, so their depth is checked before the SDK's recursive validation sees them.
    if (request.method === "POST" && isJsonContentType(request.headers.get("content-type"))) {
      const body = await readJsonRpcBody(request, config.maxBodyBytes ?? defaultMaxBodyBytes);
      if ("response" in body) return body.response;
      return handler.fetch(request, { parsedBody: body.parsedBody, ...(authInfo ? { authInfo } : {}) });
    }
    return handler.fetch(request, authInfo ? { authInfo } : undefined);
  });
  app.notFound((context) =>
    context.json({ error: "not_found", message: `Nothing at ${context.req.path}; MCP is served at ${mcpPath}.` }, 404),
  );
  app.onError((error, context) => {
    const errorId = newErrorId();
    if (isTransientDatabaseFault(error)) {
      logger.warn("HTTP request refused: the database is unavailable", { error_id: errorId, error });
      context.header("Retry-After", String(databaseRetryAfterSeconds));
      return context.json(
        {
          error: "unavailable",
          message: `The database is unavailable for the moment (error ${errorId}); retry after ${databaseRetryAfterSeconds} s.`,
          error_id: errorId,
          retryable: true,
        },
        503,
      );
    }
    logger.error("HTTP handler failed", { error_id: errorId, error });
    return context.json(
      {
        error: "internal_error",
        message: `The server failed to handle the request (error ${errorId}); the details are in its log.`,
        error_id: errorId,
      },
      500,
    );
  });
  return app;
}

/**
 * The node:http server of the app, listening: slow clients dropped, canonical Host headers, parse refusals answered
 * as JSON-RPC. A listen failure rejects naming the address (and the setting to change when the port is taken).
 */
async function listenHttpServer(app: Hono, config: HttpTransportConfig): Promise<NodeServer> {
  // overrideGlobalObjects: false keeps the platform's Request/Response (the SDK builds its own responses).
  // Slow clients are dropped: headers and the whole request must arrive in time (node answers 408 and closes).
  const server = createAdaptorServer({
    fetch: app.fetch,
    hostname: config.host,
    port: config.port,
    overrideGlobalObjects: false,
    serverOptions: receiveTimeouts(config),
    // The Host header is read case-insensitively, an IPv6 address in any spelling (canonicalizeHostHeader).
    createServer: ((serverOptions: ServerOptions, listener: RequestListener) =>
      createNodeServer(serverOptions, (request, response) => {
        canonicalizeHostHeader(request);
        listener(request, response);
      })) as typeof createNodeServer,
  }) as NodeServer;
  server.keepAliveTimeout = idleKeepAliveMs;
  server.on("clientError", answerClientError);
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const hint =
        error.code === "EADDRINUSE" ? ` Port ${config.port} is in use: pick another with --port or MCP_HTTP_PORT.` : "";
      reject(new Error(`Cannot listen on ${config.host}:${config.port}: ${error.message}.${hint}`, { cause: error }));
    };
    server.once("error", onError);
    server.listen(config.port, config.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
  return server;
}

/**
 * A request node's parser refused before any handler saw it: a JSON-RPC error
 * naming the field (-32600, data INVALID_INPUT, as the transport's other
 * refusals), then the connection is closed (see httpParseRefusal).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const refusal = httpParseRefusal(error.code, socket.writable);
  if (refusal.kind === "close") return void socket.destroy();
  if (refusal.kind === "status") {
    answerAndClose(socket, rawHttpResponse(refusal.status));
    return;
  }
  const { field, message } = refusal;
  const json = JSON.stringify({
    jsonrpc: "2.0",
    error: {
      code: -32600,
      message: `Invalid Request: ${field}: ${message}`,
      data: { code: "INVALID_INPUT", issues: [{ field, message }] },
    },
    id: null,
  });
  answerAndClose(socket, rawHttpResponse("400 Bad Request", { json }));
}

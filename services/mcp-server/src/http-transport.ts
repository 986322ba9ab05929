import { createHash, timingSafeEqual } from "node:crypto";
import type { Server as NodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  type McpServer,
  OAuthError,
  OAuthErrorCode,
  originValidationResponse,
  requireBearerAuth,
  type AuthInfo,
} from "@modelcontextprotocol/server";
import { Hono } from "hono";
import type { HttpTransportConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import type { ViewerHandler } from "@deliberate/viewer";
import type { RunningTransport } from "./stdio-transport.ts";

/** Where MCP is served. */
export const mcpPath = "/mcp";
/** Where the session viewer is served. */
export const viewerPath = "/ui";
/** Liveness endpoint: no auth, no Host check, answers `{"status":"ok"}`. */
export const healthPath = "/healthz";

export interface HttpTransportOptions {
  config: HttpTransportConfig;
  /** Builds a server per request (the SDK's stateless serving). */
  createServer: () => McpServer;
  /** The session viewer, served at /ui behind the same Host/Origin checks and token. */
  viewer?: ViewerHandler;
  logger: Logger;
}

export interface RunningHttpTransport extends RunningTransport {
  /** The MCP endpoint, e.g. http://127.0.0.1:8080/mcp (with the bound port when 0 was asked for). */
  url: string;
  port: number;
  /** The session viewer, when served, e.g. http://127.0.0.1:8080/ui. */
  viewerUrl?: string;
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** Checks the one configured token in constant time (hashing first evens out lengths). */
function staticTokenAuthentication(token: string) {
  const expected = digest(token);
  return requireBearerAuth({
    verifier: {
      verifyAccessToken: async (presented) => {
        if (!timingSafeEqual(digest(presented), expected)) throw new OAuthError(OAuthErrorCode.InvalidToken, "Invalid bearer token");
        // The SDK refuses tokens without an expiry; a static token does not expire.
        const authInfo: AuthInfo = { token: presented, clientId: "mcp-http-token", scopes: [], expiresAt: Number.MAX_SAFE_INTEGER };
        return authInfo;
      },
    },
  });
}

function isAuthInfo(value: AuthInfo | Response): value is AuthInfo {
  return typeof (value as AuthInfo).token === "string" && typeof (value as AuthInfo).clientId === "string";
}

function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
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
  const anyHost = config.allowedHosts.includes("*");
  const allowedHosts = [...localhostAllowedHostnames(), ...config.allowedHosts.filter((host) => host !== "*")];
  const allowedOrigins = [...localhostAllowedOrigins(), ...config.allowedOrigins];
  const authenticate = config.token !== undefined ? staticTokenAuthentication(config.token) : undefined;

  /** DNS-rebinding protection: a refusal for a request from a host or origin not allowed, else undefined. */
  const refuseForeign = (request: Request): Response | undefined => {
    const rejected = (anyHost ? undefined : hostHeaderValidationResponse(request, allowedHosts)) ?? originValidationResponse(request, allowedOrigins);
    if (rejected) {
      logger.warn("HTTP request refused by Host/Origin check", {
        status: rejected.status,
        host: request.headers.get("host") ?? undefined,
        origin: request.headers.get("origin") ?? undefined,
        fix: "add the name to MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS if it is legitimate",
      });
    }
    return rejected;
  };

  const app = new Hono();
  app.get(healthPath, (context) => context.json({ status: "ok" }));
  const viewer = options.viewer;
  if (viewer) {
    // Without a token on loopback, the Host/Origin check is what keeps a rebinding page from reading sessions.
    const serveViewer = async (request: Request) => refuseForeign(request) ?? (await viewer(request));
    app.all(viewerPath, async (context) => (await serveViewer(context.req.raw)) ?? context.notFound());
    app.all(`${viewerPath}/*`, async (context) => (await serveViewer(context.req.raw)) ?? context.notFound());
  }
  app.all(mcpPath, async (context) => {
    const request = context.req.raw;
    const rejected = refuseForeign(request);
    if (rejected) return rejected;
    let authInfo: AuthInfo | undefined;
    if (authenticate) {
      const outcome = await authenticate(request);
      // Structural check: Response classes from different realms fail `instanceof`.
      if (!isAuthInfo(outcome)) {
        logger.info("HTTP request refused: missing or wrong bearer token", { status: outcome.status });
        return outcome;
      }
      authInfo = outcome;
    }
    return handler.fetch(request, authInfo ? { authInfo } : undefined);
  });
  app.notFound((context) => context.json({ error: "not_found", message: `Nothing at ${context.req.path}; MCP is served at ${mcpPath}.` }, 404));
  app.onError((error, context) => {
    logger.error("HTTP handler failed", { error });
    return context.json({ error: "internal_error", message: "The server failed to handle the request." }, 500);
  });

  // overrideGlobalObjects: false keeps the platform's Request/Response (the SDK builds its own responses).
  const server = createAdaptorServer({ fetch: app.fetch, hostname: config.host, port: config.port, overrideGlobalObjects: false }) as NodeServer;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const hint = error.code === "EADDRINUSE" ? ` Port ${config.port} is in use: pick another with --port or MCP_HTTP_PORT.` : "";
      reject(new Error(`Cannot listen on ${config.host}:${config.port}: ${error.message}.${hint}`, { cause: error }));
    };
    server.once("error", onError);
    server.listen(config.port, config.host, () => {
      server.off("error", onError);
      resolve();
    });
  });
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

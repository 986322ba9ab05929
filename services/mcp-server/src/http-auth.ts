import { createHash, timingSafeEqual } from "node:crypto";
import { type AuthInfo, OAuthError, OAuthErrorCode, requireBearerAuth } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import type { Logger } from "./logger.ts";

/** The bearer check of one request: the caller's identity, a refusal to send, or undefined when no token is configured. */
export type Authorize = (context: Context) => Promise<AuthInfo | Response | undefined>;

/**
 * The bearer check of the HTTP transport (`MCP_HTTP_TOKEN`), throttled per client address: past `failures.limit`
 * missing or wrong tokens in a window the client gets 429 until the window ends. Without a token every request passes.
 */
export function createAuthorizer(
  token: string | undefined,
  failureLimit: { limit: number; windowMs: number },
  logger: Logger,
): Authorize {
  const authenticate = token !== undefined ? staticTokenAuthentication(token) : undefined;
  const failures = createFailureCounter(failureLimit);
  return async (context) => {
    if (!authenticate) return undefined;
    const client = remoteAddress(context);
    const lockedFor = failures.lockedFor(client);
    if (lockedFor > 0) return tooManyFailures(lockedFor);
    const outcome = await authenticate(context.req.raw);
    // Structural check: Response classes from different realms fail `instanceof`.
    if (isAuthInfo(outcome)) return outcome;
    logger.info("HTTP request refused: missing or wrong bearer token", {
      status: outcome.status,
      path: context.req.path,
    });
    const locked = failures.fail(client);
    return locked > 0 ? tooManyFailures(locked) : outcome;
  };
}

/** True for an authenticated caller's identity, false for a refusal (checked structurally, not with `instanceof`). */
export function isAuthInfo(value: AuthInfo | Response): value is AuthInfo {
  return typeof (value as AuthInfo).token === "string" && typeof (value as AuthInfo).clientId === "string";
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
        if (!timingSafeEqual(digest(presented), expected))
          throw new OAuthError(OAuthErrorCode.InvalidToken, "Invalid bearer token");
        // The SDK refuses tokens without an expiry; a static token does not expire.
        const authInfo: AuthInfo = {
          token: presented,
          clientId: "mcp-http-token",
          scopes: [],
          expiresAt: Number.MAX_SAFE_INTEGER,
        };
        return authInfo;
      },
    },
  });
}

/** The socket peer of a request served by @hono/node-server ("unknown" elsewhere). */
function remoteAddress(context: Context): string {
  const incoming = (context.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? "unknown";
}

/**
 * Counts failed authentications per client in a fixed window: past `limit`
 * the client is locked out until the window ends (its token is not checked).
 */
function createFailureCounter(options: { limit: number; windowMs: number }) {
  const windows = new Map<string, { start: number; count: number }>();
  const current = (client: string) => {
    const now = Date.now();
    const window = windows.get(client);
    if (window && now - window.start < options.windowMs) return window;
    if (windows.size > 10_000)
      for (const [key, stale] of windows) if (now - stale.start >= options.windowMs) windows.delete(key);
    const fresh = { start: now, count: 0 };
    windows.set(client, fresh);
    return fresh;
  };
  const remaining = (window: { start: number }) => Math.max(1, window.start + options.windowMs - Date.now());
  return {
    /** Milliseconds the client stays locked out, 0 when it may try. */
    lockedFor(client: string): number {
      const window = current(client);
      return window.count >= options.limit ? remaining(window) : 0;
    },
    /** Counts one failure; returns the lockout it starts (0 while under the limit). */
    fail(client: string): number {
      const window = current(client);
      window.count += 1;
      return window.count > options.limit ? remaining(window) : 0;
    },
  };
}

function tooManyFailures(lockedForMs: number): Response {
  const seconds = Math.ceil(lockedForMs / 1000);
  return Response.json(
    {
      error: "too_many_requests",
      message: `Too many failed authentication attempts from this address; retry after ${seconds} s with the right token (MCP_HTTP_TOKEN).`,
    },
    { status: 429, headers: { "Retry-After": String(seconds) } },
  );
}

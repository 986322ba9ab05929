import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { HttpError } from "../errors.ts";
import { clientAddress, createRateLimiter } from "./rate-limit.ts";

const realm = 'Bearer realm="deliberate"';

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

export interface BearerAuthOptions {
  token: string | undefined;
  isPublic: (path: string) => boolean;
  /** Missing or wrong tokens a client may send per window; past it every request from the client is 429 until the window ends. */
  failureLimit: number;
  failureWindowMs: number;
  /** Take the client address from X-Forwarded-For (as the rate limit does). */
  trustProxy: boolean;
  now?: () => number;
}

/**
 * Requires `Authorization: Bearer <token>` unless the path is public. The
 * comparison is constant-time (both sides hashed to equal length first).
 * Guessing is throttled per client: after `failureLimit` failures within
 * `failureWindowMs`, the client gets 429 with Retry-After (its token is not
 * even checked) until the window ends.
 */
export function bearerAuth(options: BearerAuthOptions): MiddlewareHandler<AppEnv> {
  const expected = options.token === undefined ? undefined : digest(options.token);
  const failures = createRateLimiter({ limit: options.failureLimit, windowMs: options.failureWindowMs, ...(options.now ? { now: options.now } : {}) });
  const throttled = (resetMs: number) => {
    const seconds = Math.max(1, Math.ceil(resetMs / 1000));
    return new HttpError({
      code: "RATE_LIMITED",
      message: `Too many failed authentication attempts from this client: at most ${options.failureLimit} per ${Math.ceil(options.failureWindowMs / 1000)} s.`,
      hint: `Retry after ${seconds} s with the right token (REASONING_API_TOKEN).`,
      headers: { "Retry-After": String(seconds) },
      retryable: true,
    });
  };
  return async (c, next) => {
    if (expected === undefined || options.isPublic(c.req.path)) return next();
    const client = clientAddress(c, options.trustProxy);
    const standing = failures.peek(client);
    if (!standing.allowed) throw throttled(standing.resetMs);
    const fail = (error: HttpError): never => {
      const decision = failures.hit(client);
      if (!decision.allowed) throw throttled(decision.resetMs);
      throw error;
    };
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) {
      return fail(
        new HttpError({
          code: "UNAUTHORIZED",
          message: header === undefined ? "Missing Authorization header." : "The Authorization header is not a bearer token.",
          hint: "Send Authorization: Bearer <REASONING_API_TOKEN>.",
          headers: { "WWW-Authenticate": realm },
        }),
      );
    }
    if (!timingSafeEqual(digest(match[1] as string), expected)) {
      return fail(
        new HttpError({
          code: "UNAUTHORIZED",
          message: "The bearer token is not valid.",
          hint: "Send the token configured as REASONING_API_TOKEN on the server.",
          headers: { "WWW-Authenticate": `${realm}, error="invalid_token"` },
        }),
      );
    }
    return next();
  };
}

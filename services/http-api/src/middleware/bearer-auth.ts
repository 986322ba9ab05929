import { createHash, timingSafeEqual } from "node:crypto";
import { HttpError } from "../errors.ts";
import { createRateLimiter } from "./rate-limit.ts";

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
  now?: () => number;
}

export interface BearerCheck {
  /** Whether `path` needs no token (or no token is configured). */
  isOpen(path: string): boolean;
  /** The 401 or 429 for the request, counting a failure against the client; undefined when it passes. */
  check(header: string | undefined, client: string): HttpError | undefined;
}

/**
 * Requires `Authorization: Bearer <token>` unless the path is public. The
 * comparison is constant-time (both sides hashed to equal length first).
 * Guessing is throttled per client: after `failureLimit` failures within
 * `failureWindowMs`, the client gets 429 with Retry-After (its token is not
 * even checked) until the window ends. One failure counter for the process.
 */
export function createBearerCheck(options: BearerAuthOptions): BearerCheck {
  const expected = options.token === undefined ? undefined : digest(options.token);
  const failures = createRateLimiter({
    limit: options.failureLimit,
    windowMs: options.failureWindowMs,
    ...(options.now ? { now: options.now } : {}),
  });
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
  const tokenOf = (header: string | undefined) =>
    header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return {
    isOpen: (path) => expected === undefined || options.isPublic(path),
    check(header, client) {
      if (expected === undefined) return undefined;
      const standing = failures.peek(client);
      if (!standing.allowed) return throttled(standing.resetMs);
      const fail = (error: HttpError): HttpError => {
        const decision = failures.hit(client);
        return decision.allowed ? error : throttled(decision.resetMs);
      };
      const match = tokenOf(header);
      if (!match) {
        return fail(
          new HttpError({
            code: "UNAUTHORIZED",
            message:
              header === undefined
                ? "Missing Authorization header."
                : "The Authorization header is not a bearer token.",
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
      return undefined;
    },
  };
}

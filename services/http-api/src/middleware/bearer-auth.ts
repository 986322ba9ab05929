import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { HttpError } from "../errors.ts";

const realm = 'Bearer realm="deliberate"';

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/**
 * Requires `Authorization: Bearer <token>` unless the path is public. The
 * comparison is constant-time (both sides hashed to equal length first).
 */
export function bearerAuth(options: { token: string | undefined; isPublic: (path: string) => boolean }): MiddlewareHandler<AppEnv> {
  const expected = options.token === undefined ? undefined : digest(options.token);
  return async (c, next) => {
    if (expected === undefined || options.isPublic(c.req.path)) return next();
    const header = c.req.header("authorization");
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) {
      throw new HttpError({
        code: "UNAUTHORIZED",
        message: header === undefined ? "Missing Authorization header." : "The Authorization header is not a bearer token.",
        hint: "Send Authorization: Bearer <REASONING_API_TOKEN>.",
        headers: { "WWW-Authenticate": realm },
      });
    }
    if (!timingSafeEqual(digest(match[1] as string), expected)) {
      throw new HttpError({
        code: "UNAUTHORIZED",
        message: "The bearer token is not valid.",
        hint: "Send the token configured as REASONING_API_TOKEN on the server.",
        headers: { "WWW-Authenticate": `${realm}, error="invalid_token"` },
      });
    }
    return next();
  };
}

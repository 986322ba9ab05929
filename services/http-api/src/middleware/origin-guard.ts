import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { isLoopbackHost } from "../config.ts";
import { HttpError } from "../errors.ts";

/** The hostname of a Host header value (`example.com:9000` -> `example.com`, `[::1]:9000` -> `[::1]`), or undefined when malformed. */
function hostnameOf(value: string): string | undefined {
  try {
    const { hostname } = new URL(`http://${value}`);
    return hostname === "" ? undefined : hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * DNS-rebinding and cross-site protection, like the MCP transport's: the
 * `Host` header must name this machine's loopback (localhost, 127.0.0.0/8,
 * [::1]) or a configured name (`REASONING_API_ALLOWED_HOSTS`, a named bind
 * address), and a browser's `Origin`, when sent, must be loopback or
 * configured (`REASONING_API_ALLOWED_ORIGINS`). Anything else is 403 before
 * any other work. No CORS headers are ever sent, so browsers keep other
 * sites' pages from reading answers.
 */
export function originGuard(options: { allowedHosts: readonly string[]; allowedOrigins: readonly string[]; skip: (path: string) => boolean }): MiddlewareHandler<AppEnv> {
  const anyHost = options.allowedHosts.includes("*");
  const hosts = new Set(options.allowedHosts);
  const origins = new Set(options.allowedOrigins);
  return async (c, next) => {
    if (options.skip(c.req.path)) return next();
    if (!anyHost) {
      // Under node the URL is built from the Host header; app.request() has only the URL.
      const header = c.req.header("host") ?? new URL(c.req.url).host;
      const hostname = hostnameOf(header);
      if (hostname === undefined || (!isLoopbackHost(hostname) && !hosts.has(hostname))) {
        throw new HttpError({
          code: "FORBIDDEN",
          message: `Host "${header.slice(0, 100)}" is not allowed.`,
          hint: "Reach the API by a loopback name (localhost, 127.0.0.1), or add this name to REASONING_API_ALLOWED_HOSTS on the server.",
        });
      }
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      let hostname: string | undefined;
      try {
        hostname = origin === "null" ? undefined : new URL(origin).hostname.toLowerCase();
      } catch {
        hostname = undefined;
      }
      if (hostname === undefined || hostname === "" || (!isLoopbackHost(hostname) && !origins.has(hostname))) {
        throw new HttpError({
          code: "FORBIDDEN",
          message: `Origin "${origin.slice(0, 100)}" is not allowed.`,
          hint: "Browsers may call the API only from loopback pages or origins listed in REASONING_API_ALLOWED_ORIGINS.",
        });
      }
    }
    await next();
  };
}

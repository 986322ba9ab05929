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
export interface OriginGuardOptions {
  allowedHosts: readonly string[];
  allowedOrigins: readonly string[];
}

/**
 * The check itself (run by `requestChecks`): the
 * 403 for a `Host` header value (`undefined` when there is none) and an
 * `Origin` header value, or undefined when both are allowed.
 */
/** How many distinct Host values the check remembers its verdict on (forgotten all at once when full). */
const rememberedHosts = 64;

export function createHostOriginCheck(
  options: OriginGuardOptions,
): (host: string | undefined, origin: string | undefined) => HttpError | undefined {
  const anyHost = options.allowedHosts.includes("*");
  const hosts = new Set(options.allowedHosts);
  const origins = new Set(options.allowedOrigins);
  // Whether a Host value is allowed, remembered per value (clients send a handful; parsing one is a URL parse).
  const hostVerdicts = new Map<string, boolean>();
  const hostAllowed = (header: string): boolean => {
    let allowed = hostVerdicts.get(header);
    if (allowed === undefined) {
      const hostname = hostnameOf(header);
      allowed = hostname !== undefined && (isLoopbackHost(hostname) || hosts.has(hostname));
      if (hostVerdicts.size >= rememberedHosts) hostVerdicts.clear();
      hostVerdicts.set(header, allowed);
    }
    return allowed;
  };
  return (host, origin) => {
    if (!anyHost) {
      const header = host ?? "";
      if (!hostAllowed(header)) {
        return new HttpError({
          code: "FORBIDDEN",
          message: `Host "${header.slice(0, 100)}" is not allowed.`,
          hint: "Reach the API by a loopback name (localhost, 127.0.0.1), or add this name to REASONING_API_ALLOWED_HOSTS on the server.",
        });
      }
    }
    if (origin !== undefined) {
      let hostname: string | undefined;
      try {
        hostname = origin === "null" ? undefined : new URL(origin).hostname.toLowerCase();
      } catch {
        hostname = undefined;
      }
      if (hostname === undefined || hostname === "" || (!isLoopbackHost(hostname) && !origins.has(hostname))) {
        return new HttpError({
          code: "FORBIDDEN",
          message: `Origin "${origin.slice(0, 100)}" is not allowed.`,
          hint: "Browsers may call the API only from loopback pages or origins listed in REASONING_API_ALLOWED_ORIGINS.",
        });
      }
    }
    return undefined;
  };
}

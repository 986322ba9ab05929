/**
 * What both HTTP servers (the API and MCP over Streamable HTTP) accept alike: one body limit, JSON bodies in
 * UTF-8 only, and one reading of Host names (case-insensitive, any spelling of an IPv6 address).
 */

/** The largest request body either service reads by default: 1 MiB (413 beyond). */
export const defaultMaxBodyBytes = 1024 * 1024;

/** The `charset` parameter of a Content-Type value, lower case and unquoted, or undefined when none is given. */
export function charsetOf(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const parameter of contentType.split(";").slice(1)) {
    const [name, ...rest] = parameter.split("=");
    if (name?.trim().toLowerCase() !== "charset") continue;
    return rest
      .join("=")
      .trim()
      .replace(/^"(.*)"$/s, "$1")
      .toLowerCase();
  }
  return undefined;
}

/**
 * Why a JSON body's declared charset is refused (415), or undefined when it is UTF-8 or not given. JSON
 * exchanged between systems is UTF-8 (RFC 8259 §8.1); reading a UTF-16 or Latin-1 body as UTF-8 would
 * store text other than what was sent.
 */
export function unsupportedCharset(contentType: string | undefined): string | undefined {
  const charset = charsetOf(contentType);
  if (charset === undefined || charset === "utf-8" || charset === "utf8") return undefined;
  return `charset=${charset.slice(0, 40)} is not supported: JSON bodies are read as UTF-8 only`;
}

/** The canonical form of an IPv6 address (lower case, zeros compressed) via the URL parser, or undefined when it is not one. */
function canonicalIPv6(address: string): string | undefined {
  try {
    const { hostname } = new URL(`http://[${address.replace(/%.*$/s, "")}]/`);
    return hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/**
 * True for this machine's loopback names: `localhost` and `*.localhost`, 127.0.0.0/8, and `::1` or an
 * IPv4-mapped 127.x address in any IPv6 spelling (`0:0:0:0:0:0:0:1`, `[::1]`, `::FFFF:127.0.0.1`).
 * Case-insensitive; brackets optional. Both services decide "served without a token" and "a loopback Host"
 * with this one function.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host).toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(bare))
    return bare.split(".").every((octet) => Number(octet) <= 255) && bare.startsWith("127.");
  if (!bare.includes(":")) return false;
  const canonical = canonicalIPv6(bare);
  return canonical === "::1" || (canonical !== undefined && /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(canonical));
}

/**
 * The canonical form of a `Host` header value — lower case, an IPv6 address compressed — or undefined when it
 * is not a plain `host[:port]`. Servers rewrite the header to it before routing, so `LOCALHOST:9000` and
 * `[0:0:0:0:0:0:0:1]:9000` are the names they are (@hono/node-server refuses a Host its URL parser rewrites).
 */
export function canonicalHostHeader(value: string): string | undefined {
  if (value === "" || /[\s/?#@\\]/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}/`);
    if (url.pathname !== "/" || url.username !== "" || url.password !== "") return undefined;
    // The URL drops the default port: keep the one the client sent.
    const port = /:(\d+)$/.exec(value)?.[1];
    return port !== undefined && url.port === "" && !value.endsWith("]") ? `${url.hostname}:${port}` : url.host;
  } catch {
    return undefined;
  }
}

import { canonicalHostHeader } from "./http-request-rules.ts";

/**
 * Rewrites a node request's `Host` header to its canonical form (`canonicalHostHeader`) before anything
 * routes it, so a Host in capitals or an expanded IPv6 loopback is the name it is, not a 400. A value that
 * is not a plain host is left for the Host check to refuse.
 */
export function canonicalizeHostHeader(request: { headers: { host?: string | undefined } }): void {
  const host = request.headers.host;
  if (host === undefined) return;
  const canonical = canonicalHostHeader(host);
  if (canonical !== undefined && canonical !== host) request.headers.host = canonical;
}

import { createHash } from "node:crypto";

/**
 * Who calls the REST API, as the service can tell: with `REASONING_API_TOKEN`
 * every request has passed the bearer check, so the caller is the holder of
 * that token (a digest of it, never the token); without a token the service
 * cannot tell callers apart and every call is anonymous (undefined). Handlers
 * may bind what a call creates to the caller (the knowledge graph's sessions
 * are): an anonymous caller continues a session by its signed state instead.
 */
export function restCallerFor(apiToken: string | undefined): string | undefined {
  if (apiToken === undefined) return undefined;
  return `rest-token:${createHash("sha256").update(apiToken).digest("base64url").slice(0, 32)}`;
}

import { createHash, randomUUID } from "node:crypto";
import type { McpServer, ServerContext } from "@modelcontextprotocol/server";

/** One identity per server instance for connections that are not HTTP (stdio: one client per process). */
const connectionIdentities = new WeakMap<McpServer, string>();

/** A new identity for one connection (a stdio process's client). */
export function newConnectionCaller(): string {
  return `mcp-connection:${randomUUID()}`;
}

/** Gives a server instance the identity of its connection (the stdio fast path answers as the same caller). */
export function bindConnectionCaller(server: McpServer, caller: string): void {
  connectionIdentities.set(server, caller);
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 32);
}

/**
 * Who is calling, as this transport can tell (handlers may bind what a call
 * creates to it, as the knowledge graph's sessions are): over stdio (or any
 * other single-client connection) the connection itself; over HTTP the bearer
 * token presented (a digest, never the token) and the MCP session when the
 * client has one. An HTTP request with neither is anonymous (undefined):
 * nothing can be bound to it, so a session must then be continued by its
 * signed state.
 */
export function callerOf(server: McpServer, context: ServerContext): string | undefined {
  if (context.http === undefined) {
    let identity = connectionIdentities.get(server);
    if (identity === undefined) {
      identity = newConnectionCaller();
      connectionIdentities.set(server, identity);
    }
    return identity;
  }
  const token = context.http.authInfo?.token;
  const parts = [
    ...(token !== undefined ? [`token:${digest(token)}`] : []),
    ...(context.sessionId !== undefined ? [`session:${digest(context.sessionId)}`] : []),
  ];
  return parts.length > 0 ? `mcp-http:${parts.join("/")}` : undefined;
}

/**
 * What a service answers a request its HTTP parser refused before any handler
 * saw it (node's `clientError`): a header holding U+0000 or another control
 * character, a malformed request line. Both services answer it in their own
 * error shape (`invalid`: 400 naming the field) instead of node's bare "400
 * Bad Request"; oversized headers stay 431 and slow requests 408, as node
 * answers them; anything else (a reset, a socket no longer writable) is closed.
 */
export type HttpParseRefusal =
  | { kind: "close" }
  | { kind: "status"; status: string }
  | { kind: "invalid"; field: "(headers)" | "(request)"; message: string };

const headerCodes = new Set([
  "HPE_INVALID_HEADER_TOKEN",
  "HPE_INVALID_HEADER_VALUE",
  "HPE_LF_EXPECTED",
  "HPE_CR_EXPECTED",
]);

/** The refusal for node's error `code` on a socket that is still `writable`. */
export function httpParseRefusal(code: string | undefined, writable: boolean): HttpParseRefusal {
  if (!writable || code === "ECONNRESET") return { kind: "close" };
  if (code === "HPE_HEADER_OVERFLOW") return { kind: "status", status: "431 Request Header Fields Too Large" };
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return { kind: "status", status: "408 Request Timeout" };
  if (code === undefined || !code.startsWith("HPE_")) return { kind: "close" };
  if (headerCodes.has(code)) {
    return {
      kind: "invalid",
      field: "(headers)",
      message:
        "a header name or value holds a character HTTP does not allow there (e.g. U+0000 or another control character)",
    };
  }
  return { kind: "invalid", field: "(request)", message: `not a well-formed HTTP/1.1 request (${code})` };
}

const utf8 = new TextEncoder();

/** A whole HTTP/1.1 response that closes the connection, written straight to the socket (no response object exists yet). */
export function rawHttpResponse(status: string, body?: { json: string; headers?: Record<string, string> }): string {
  if (body === undefined) return `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`;
  const extra = Object.entries(body.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${utf8.encode(body.json).length}\r\n${extra}Connection: close\r\n\r\n${body.json}`;
}

/** How long a refused connection stays open after its answer, for the client to read it, before it is closed. */
export const refusalLingerMs = 1000;

/**
 * Sends `response` on a socket whose request was refused, then closes it: at once when the client closes its
 * side, else after `lingerMs`. `end()` alone only half-closes (FIN): a client that ignores it and keeps
 * trickling bytes would hold the connection open past every timeout.
 */
export function answerAndClose(
  socket: {
    end(data: string): unknown;
    destroy(): unknown;
    once(event: "end" | "close", listener: () => void): unknown;
  },
  response: string,
  lingerMs = refusalLingerMs,
): void {
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref?.();
  socket.once("end", () => socket.destroy());
  socket.once("close", () => clearTimeout(timer));
  socket.end(response);
}

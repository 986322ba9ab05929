import { createServer as createNodeServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { answerAndClose, canonicalizeHostHeader, httpParseRefusal, rawHttpResponse } from "@deliberate/contracts";
import type { ApiConfig } from "./config.ts";

/** The node:http server of the service: its time limits, canonical Host headers, and parse refusals answered as JSON. */
export function createHttpServer(
  http: ApiConfig["http"],
  listener: RequestListener,
  newRequestId: () => string,
): Server {
  // Slow clients are dropped: headers and the whole request must arrive in time (node answers 408 and
  // closes). Node checks every connectionsCheckingInterval (30 s by default), so check more often.
  const serverOptions = {
    headersTimeout: http.headersTimeoutMs,
    requestTimeout: http.bodyTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(http.headersTimeoutMs / 4))),
  };
  // The Host header is read case-insensitively, an IPv6 address in any spelling (canonicalizeHostHeader).
  const canonicalizeHost = createHostCanonicalizer();
  const server = createNodeServer(serverOptions, (request, response) => {
    canonicalizeHost(request);
    listener(request, response);
  });
  // Idle keep-alive connections outlive the clients' own idle limits (undici's is 4 s), so a client closes
  // first: with node's 5 s a client whose event loop was busy reused a socket being closed ("other side closed").
  server.keepAliveTimeout = 30_000;
  // A client that half-closes (FIN after its requests, as `nc -N` or a one-shot client does) still gets every
  // answer already made, pipelined ones too: in half-open mode node ends the connection after the last pending
  // one, where by default it ends it as it reads the FIN. A request still running when the FIN arrives is
  // cancelled as before (the dispatcher's ClientEnds). `httpAllowHalfOpen` is node's own switch (read in
  // _http_server.js's socketOnEnd; not in @types/node): test/answers-written-together.test.ts guards it.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(error, socket, newRequestId()),
  );
  return server;
}

/** How many distinct Host values have their canonical form remembered (all forgotten when full). */
const hostCacheSize = 64;

/**
 * `canonicalizeHostHeader` with its answer remembered per Host value: a client sends the same Host on
 * every request, and working it out parses a URL (about 2 µs a request).
 */
export function createHostCanonicalizer(): (request: IncomingMessage) => void {
  const canonical = new Map<string, string>();
  return (request) => {
    const host = request.headers.host;
    if (host === undefined) return;
    let value = canonical.get(host);
    if (value === undefined) {
      const probe: { headers: { host?: string } } = { headers: { host } };
      canonicalizeHostHeader(probe);
      value = probe.headers.host ?? host;
      if (canonical.size >= hostCacheSize) canonical.clear();
      canonical.set(host, value);
    }
    if (value !== host) request.headers.host = value;
  };
}

/** Listens on `host:port` (0 picks a port); resolves to the base URL once listening, rejects on a listen error. */
export function listenForBaseUrl(server: Server, port: number, host: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    server.listen(port, host, () => {
      const info = server.address() as AddressInfo;
      const shownHost = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve(`http://${shownHost}:${info.port}`);
    });
    server.once("error", reject);
  });
}

/**
 * Stops accepting connections and resolves once the open ones have ended: idle keep-alive connections are closed as
 * they become idle, and whatever is still open after `graceMs` is closed by force.
 */
export function closeHttpServer(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    // Keep-alive connections become idle as their last response ends: close them as they do.
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * A request node's parser refused before any route saw it: the service's JSON
 * error body (400 INVALID_INPUT naming the field), then the connection is
 * closed (see httpParseRefusal).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, requestId: string): void {
  const refusal = httpParseRefusal(error.code, socket.writable);
  if (refusal.kind === "close") return void socket.destroy();
  if (refusal.kind === "status") {
    answerAndClose(socket, rawHttpResponse(refusal.status));
    return;
  }
  const { field, message } = refusal;
  const json = JSON.stringify({
    status: "error",
    error: {
      code: "INVALID_INPUT",
      message: `Malformed request: ${field}: ${message}`,
      issues: [{ field, message }],
      hint: "Send header values as printable text (percent-encode or drop control characters).",
      retryable: false,
    },
    request_id: requestId,
  });
  answerAndClose(socket, rawHttpResponse("400 Bad Request", { json, headers: { "X-Request-Id": requestId } }));
}

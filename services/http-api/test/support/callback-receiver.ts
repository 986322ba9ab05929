import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedCallback {
  path: string;
  headers: IncomingMessage["headers"];
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on callback bodies field by field
  body: any;
  raw: string;
}

/** A loopback HTTP server that records callbacks; `respond` picks the status (default 200). */
export async function startCallbackReceiver(
  respond: (callback: ReceivedCallback, index: number) => number = () => 200,
) {
  const received: ReceivedCallback[] = [];
  let attempts = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const callback = { path: request.url ?? "/", headers: request.headers, body, raw };
      const status = respond(callback, attempts);
      attempts += 1;
      if (status >= 200 && status < 300) received.push(callback);
      response.writeHead(status, { "content-type": "text/plain" });
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get attempts() {
      return attempts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

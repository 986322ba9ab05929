import { connect, createServer, type Socket } from "node:net";

/** A loopback proxy in front of a Postgres server that counts the round trips its clients make. */
export interface RoundTripCounter {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string;
  /** Round trips so far: simple queries (`Q`) plus extended-protocol queries (one `Sync`, `S`, each). */
  count(): number;
  stop(): Promise<void>;
}

/**
 * Reads the frontend messages of one connection as they pass and counts each
 * simple query and each Sync: `pg` waits for the server's ReadyForQuery after
 * each (it does not pipeline), so one is one round trip. A connection starts
 * with untyped messages (an SSL request, the startup packet), then typed ones.
 */
function countingFrontend(onRoundTrip: () => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let started = false;
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        // 3.0 startup (196608): typed messages follow; an SSL or GSS request is answered first.
        if (pending.readInt32BE(4) === 196608) started = true;
        pending = pending.subarray(length);
        continue;
      }
      if (pending.length < 5) return;
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      const type = String.fromCharCode(pending[0] as number);
      if (type === "Q" || type === "S") onRoundTrip();
      pending = pending.subarray(1 + length);
    }
  };
}

/** Starts a counting proxy on a free loopback port in front of the server of `url`. */
export async function startRoundTripCounter(url: string): Promise<RoundTripCounter> {
  const target = new URL(url);
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
    sockets.add(client);
    sockets.add(upstream);
    const counting = countingFrontend(() => {
      count += 1;
    });
    client.on("data", (chunk: Buffer) => {
      counting(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("close", close);
    upstream.on("close", close);
    client.on("error", close);
    upstream.on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the round-trip counter has no port");
  const proxied = new URL(url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(address.port);
  return {
    url: proxied.toString(),
    count: () => count,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

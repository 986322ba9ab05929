import { once } from "node:events";
import { createServer, connect, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { ClientEnds } from "./client-ends.ts";

// A client's FIN on a real loopback connection: the answers made are written first, then the connection is
// ended at once only if a request on it is still running (the client is treated as gone), else left to node.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A half-open server whose first connection is handed to the test, and a client connected to it. */
async function connection(): Promise<{ server: Socket; client: Socket }> {
  const server = createServer({ allowHalfOpen: true });
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const accepted = once(server, "connection") as Promise<[Socket]>;
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const client = connect(address.port, "127.0.0.1");
  const [socket] = await accepted;
  return { server: socket, client };
}

describe("ClientEnds", () => {
  it("on a FIN with a request still running: writes the ready answers first, then ends the connection", async () => {
    const { server, client } = await connection();
    const calls: string[] = [];
    const ends = new ClientEnds(() => calls.push("write ready"));
    ends.started(server);
    // Node's own 'end' listener comes after ours.
    server.on("end", () => calls.push(`node sees the FIN; ended by us: ${server.writableEnded}`));
    const clientClosed = once(client, "close");
    client.end();
    await clientClosed;
    expect(calls).toEqual(["write ready", "node sees the FIN; ended by us: true"]);
  });

  it("on a FIN with every request answered: writes the ready answers and leaves the connection to node", async () => {
    const { server, client } = await connection();
    const calls: string[] = [];
    const ends = new ClientEnds(() => calls.push("write ready"));
    const first = ends.started(server);
    const second = ends.started(server);
    first.finished();
    second.finished();
    const seen = once(server, "end");
    client.end();
    await seen;
    expect(calls).toEqual(["write ready"]);
    expect(server.writableEnded).toBe(false);
    server.end();
    client.destroy();
  });

  it("watches each connection once, however many requests it carries", async () => {
    const { server, client } = await connection();
    const ends = new ClientEnds(() => {});
    const before = server.listenerCount("end");
    for (let index = 0; index < 5; index += 1) ends.started(server).finished();
    expect(server.listenerCount("end")).toBe(before + 1);
    client.destroy();
    server.destroy();
  });
});

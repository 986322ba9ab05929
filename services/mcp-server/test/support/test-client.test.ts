import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { testClient } from "./test-client.ts";

/**
 * A server on the other end of an in-memory transport that answers a tools/call with two progress
 * notifications and the result in one turn, as one read of a pipe delivers them on a loaded machine.
 */
function oneReadTransport(): Transport {
  const transport: Transport = {
    async start() {},
    async close() {
      transport.onclose?.();
    },
    async send(message: JSONRPCMessage) {
      if (!("id" in message) || !("method" in message)) return;
      const { id, method } = message;
      const deliver = (messages: JSONRPCMessage[]) =>
        setTimeout(() => messages.forEach((each) => transport.onmessage?.(each)));
      if (method === "initialize") {
        const protocolVersion = (message.params as { protocolVersion: string }).protocolVersion;
        deliver([
          {
            jsonrpc: "2.0",
            id,
            result: {
              protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "one-read", version: "1.0.0" },
            },
          },
        ]);
      } else if (method === "tools/call") {
        const progressToken = (message.params as { _meta: { progressToken: string | number } })._meta.progressToken;
        deliver([
          { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: 1, total: 2 } },
          { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken, progress: 2, total: 2 } },
          { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: "done" }] } },
        ]);
      }
    },
  };
  return transport;
}

describe("testClient", () => {
  it("hands progress that arrived before the result to onprogress, when both come in one read", async () => {
    const client = testClient({ name: "test", version: "1.0.0" });
    await client.connect(oneReadTransport());
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "anything", arguments: {} },
      { onprogress: (update) => void progress.push(update.progress) },
    );
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(progress).toEqual([1, 2]);
    await client.close();
  });
});

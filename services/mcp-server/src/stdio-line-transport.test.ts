import { PassThrough, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { silentLogger } from "./logger.ts";
import { StdioLineTransport } from "./stdio-line-transport.ts";

function open(stdout: Writable = new PassThrough()) {
  const stdin = new PassThrough();
  const events: string[] = [];
  const messages: JSONRPCMessage[] = [];
  const transport = new StdioLineTransport({
    stdin,
    stdout,
    logger: silentLogger,
    maxLineBytes: 1024,
    onClosed: () => events.push("onClosed"),
  });
  transport.onclose = () => events.push("onclose");
  transport.onmessage = (message) => messages.push(message);
  return { stdin, stdout, transport, events, messages };
}

describe("StdioLineTransport", () => {
  it("delivers lines split across chunks (and CRLF lines) as messages", async () => {
    const { stdin, transport, messages } = open();
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":1,"meth');
    stdin.write('od":"ping"}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages).toEqual([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ]);
    await transport.close();
  });

  it("skips blank lines (empty, spaces, a lone CR) without an answer, and answers the message after them", async () => {
    const stdout = new PassThrough();
    const { stdin, transport, messages } = open(stdout);
    const written: string[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    await transport.start();
    stdin.write('\n   \n\r\n \t\r\n{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(written).toEqual([]);
    // A line that is neither blank nor JSON is still answered -32700.
    stdin.write(" x\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.join("")).toContain('"code":-32700');
    await transport.close();
  });

  it("reads a chunk that is one whole line as a message, and refuses one over the limit (-32600) and goes on", async () => {
    const stdout = new PassThrough();
    const { stdin, transport, messages } = open(stdout);
    const written: string[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    await transport.start();
    stdin.write('{"jsonrpc":"2.0","id":"é","method":"ping"}\n');
    stdin.write(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"${"x".repeat(2000)}"}}\n`);
    stdin.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(messages).toEqual([
      { jsonrpc: "2.0", id: "é", method: "ping" },
      { jsonrpc: "2.0", id: 4, method: "ping" },
    ]);
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0] ?? "")).toMatchObject({ id: null, error: { code: -32600 } });
    expect(written[0]).toContain("longer than 1024 bytes");
    await transport.close();
  });

  it("closes once when stdin ends: onclose, then onClosed; later sends are refused", async () => {
    const { stdin, transport, events } = open();
    await transport.start();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => {
        events.push("onclose");
        resolve();
      };
    });
    stdin.end();
    await closed;
    await transport.close();
    expect(events).toEqual(["onclose", "onClosed"]);
    await expect(transport.send({ jsonrpc: "2.0", id: 1, result: {} })).rejects.toThrow("closed");
  });

  it("closes at start when stdin has already ended", async () => {
    const { stdin, transport, events } = open();
    stdin.end();
    stdin.resume();
    await new Promise((resolve) => stdin.once("end", resolve));
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    await transport.start();
    await closed;
    expect(events).toEqual(["onClosed"]);
  });

  it("settles a send under backpressure only once the stream drains", async () => {
    const written: string[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString("utf8"));
        release = callback;
      },
    });
    const { transport } = open(slow);
    await transport.start();
    let settled = false;
    const sending = transport.send({ jsonrpc: "2.0", id: 2, result: {} }).then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual(['{"jsonrpc":"2.0","id":2,"result":{}}\n']);
    expect(settled).toBe(false);
    release?.();
    await sending;
    expect(settled).toBe(true);
    await transport.close();
  });

  it("reports a stdout failure to onerror and closes", async () => {
    const broken = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error("EPIPE"));
      },
    });
    const { transport, events } = open(broken);
    const errors: string[] = [];
    transport.onerror = (error) => errors.push(error.message);
    await transport.start();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    void transport.send({ jsonrpc: "2.0", id: 3, result: {} }).catch(() => undefined);
    await closed;
    expect(errors).toContain("EPIPE");
    expect(events).toEqual(["onClosed"]);
  });
});

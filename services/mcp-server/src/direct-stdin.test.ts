import { execFileSync } from "node:child_process";
import { once } from "node:events";
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openDirectStdin } from "./direct-stdin.ts";
import { silentLogger } from "./logger.ts";
import { StdioLineTransport } from "./stdio-line-transport.ts";

// A named pipe stands in for the pipe an MCP host gives the server as stdin: its read end is a PIPE descriptor.
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function namedPipe(): { readFd: number; writeFd: number } {
  const folder = mkdtempSync(join(tmpdir(), "direct-stdin-"));
  folders.push(folder);
  const path = join(folder, "stdin");
  execFileSync("mkfifo", [path]);
  // Opened for reading without blocking first, so the writer's open finds a reader.
  const readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  return { readFd, writeFd: openSync(path, constants.O_WRONLY) };
}

/** Resolves once `count` calls were made to the function it returns. */
function counting(count: number, each: (chunk: Buffer) => void) {
  let seen = 0;
  let reached: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return {
    done,
    onChunk: (chunk: Buffer) => {
      each(chunk);
      seen += 1;
      if (seen === count) reached();
    },
  };
}

describe.skipIf(process.platform === "win32")("reading stdin directly", () => {
  it("hands each read of a pipe over as a view of one reused buffer, and ends when the writer closes", async () => {
    const { readFd, writeFd } = namedPipe();
    const texts: string[] = [];
    const buffers = new Set<ArrayBufferLike>();
    const first = counting(1, (chunk) => {
      texts.push(chunk.toString("utf8"));
      buffers.add(chunk.buffer);
    });
    let onChunk = first.onChunk;
    const socket = openDirectStdin(readFd, (chunk) => onChunk(chunk));
    expect(socket).toBeDefined();
    writeSync(writeFd, "first line\n");
    await first.done;
    const second = counting(1, (chunk) => {
      texts.push(chunk.toString("utf8"));
      buffers.add(chunk.buffer);
    });
    onChunk = second.onChunk;
    writeSync(writeFd, "second line\n");
    await second.done;
    const ended = once(socket as NonNullable<typeof socket>, "end");
    closeSync(writeFd);
    await ended;
    expect(texts).toEqual(["first line\n", "second line\n"]);
    expect(buffers.size).toBe(1);
    socket?.destroy();
  });

  it("declines what is not a pipe or socket (a regular file): the caller reads process.stdin instead", () => {
    const fd = openSync(import.meta.filename, "r");
    try {
      expect(openDirectStdin(fd, () => {})).toBeUndefined();
    } finally {
      closeSync(fd);
    }
  });

  it("a line transport on a pipe joins a line split across reads (the piece is copied, not a view), then closes", async () => {
    const { readFd, writeFd } = namedPipe();
    const messages: JSONRPCMessage[] = [];
    const closed: string[] = [];
    const transport = new StdioLineTransport({
      stdinFd: readFd,
      stdout: new PassThrough(),
      logger: silentLogger,
      maxLineBytes: 1024,
      onClosed: () => closed.push("onClosed"),
    });
    let arrived: () => void = () => {};
    transport.onmessage = (message) => {
      messages.push(message);
      arrived();
    };
    await transport.start();
    const first = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    writeSync(writeFd, '{"jsonrpc":"2.0","id":1,"meth');
    // Once the piece is read (held as the start of a line), the next read reuses the buffer: the piece must
    // have been copied out of it.
    await vi.waitFor(() => expect((transport as unknown as { pendingBytes: number }).pendingBytes).toBe(29));
    writeSync(writeFd, 'od":"ping"}\n');
    await first;
    const second = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    writeSync(writeFd, '{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await second;
    expect(messages).toEqual([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);
    const done = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    closeSync(writeFd);
    await done;
    expect(closed).toEqual(["onClosed"]);
  });
});

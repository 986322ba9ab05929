import { type OnReadOpts, Socket, type SocketConstructorOpts } from "node:net";

/** Bytes one read can deliver: what a Readable on a pipe asks libuv for (its default chunk). */
const readBufferBytes = 64 * 1024;

/**
 * Opens file descriptor `fd` (stdin) to be read straight into one reused buffer, with net.Socket's public
 * `onread` option: each read is handed to `onChunk` as a view of that buffer, valid only during the call
 * (copy what must outlive it). This skips what a Readable stream does per chunk (a fresh 64 KiB buffer for
 * every read, `push`, the `data` event, and the `maybeReadMore` tick that Node runs before any promise
 * continuation, so before the rest of the request the chunk carries). The socket still emits `end`, `close`
 * and `error` as usual. Only a pipe or a socket can be opened this way (what an MCP host gives a server it
 * spawns); for anything else (a file, a terminal) this returns undefined, and the caller reads
 * `process.stdin` as before.
 */
export function openDirectStdin(fd: number, onChunk: (chunk: Buffer) => void): Socket | undefined {
  const buffer = Buffer.allocUnsafe(readBufferBytes);
  // `onread` is a documented constructor option (Node's docs list it there since 22; it works on 20) that
  // @types/node declares only for connect().
  const options: SocketConstructorOpts & { onread: OnReadOpts } = {
    fd,
    readable: true,
    writable: false,
    onread: {
      buffer,
      callback: (bytes: number) => {
        onChunk(buffer.subarray(0, bytes));
        return true;
      },
    },
  };
  try {
    return new Socket(options);
  } catch {
    // ERR_INVALID_FD_TYPE: a file, a TTY, or not open at all.
    return undefined;
  }
}

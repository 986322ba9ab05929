import type { Readable, Writable } from "node:stream";
import { type JSONRPCMessage, ProtocolErrorCode, serializeMessage, type Transport } from "@modelcontextprotocol/server";
import { openDirectStdin } from "./direct-stdin.ts";
import { type JsonRpcRefusal, readJsonRpcLine } from "./json-rpc-message.ts";
import type { Logger } from "./logger.ts";

/** A transport that also writes lines it serialized itself (the fast tool-call path's responses). */
export interface LineTransport extends Transport {
  /** Writes one newline-terminated JSON-RPC line; settles when the stream took it (after `drain` under backpressure). */
  writeLine(line: string): Promise<void>;
}

export interface StdioLineTransportOptions {
  /**
   * Where lines are read (tests pass a stream). Default: the process's stdin, read straight from file descriptor
   * 0 when it is a pipe or a socket (`openDirectStdin`), else through `process.stdin`.
   */
  stdin?: Readable;
  /** The descriptor read when no stream is given (default 0, stdin; tests pass a pipe's). */
  stdinFd?: number;
  stdout: Writable;
  logger: Logger;
  /** Longest accepted line in bytes; longer ones are answered -32600 and skipped. */
  maxLineBytes: number;
  /** Called once, after `onclose`, when stdin ends or closes or the transport is closed. */
  onClosed?: () => void;
}

/**
 * MCP over newline-delimited JSON-RPC on a pair of streams, written against
 * the SDK's public `Transport` interface only (so an SDK release cannot change
 * it underneath). Unlike the SDK's own stdio transport, every line gets an
 * answer: the SDK skips lines that are not JSON and reports invalid envelopes
 * only to its error hook, so a client waiting on them would wait forever; here
 * they are answered -32700 / -32600 as the HTTP transport does. Lines longer
 * than the limit are answered -32600 and skipped without being buffered whole.
 * Stdin ending or closing closes the transport (the stdio binding's guidance).
 */
export class StdioLineTransport implements LineTransport {
  onmessage?: Transport["onmessage"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];

  private started = false;
  private closed = false;
  /** The stream read, once started. */
  private stdin: Readable | undefined;
  /** Set when chunks are views of one reused buffer (`openDirectStdin`): a partial line is then copied. */
  private reusedChunks = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping the rest of an over-long line. */
  private discarding = false;

  constructor(private readonly options: StdioLineTransportOptions) {}

  private readonly onData = (chunk: Buffer) => this.receive(chunk);
  private readonly onStdinError = (error: Error) => this.onerror?.(error);
  private readonly onStdinEnd = () => void this.close();
  // Stays attached after close: a late write failure must not become an unhandled 'error' event.
  private readonly onStdoutError = (error: Error) => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };

  async start(): Promise<void> {
    if (this.started) throw new Error("The stdio transport is already started (the server's connect starts it).");
    this.started = true;
    const stdout = this.options.stdout;
    const stdin = this.openStdin();
    this.stdin = stdin;
    if (stdin.readableEnded || stdin.destroyed) setImmediate(this.onStdinEnd);
    if (!this.reusedChunks) stdin.on("data", this.onData);
    stdin.on("error", this.onStdinError);
    stdin.on("end", this.onStdinEnd);
    stdin.on("close", this.onStdinEnd);
    stdout.on("error", this.onStdoutError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.writeLine(serializeMessage(message));
  }

  writeLine(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error("The stdio transport is closed."));
    const stdout = this.options.stdout;
    if (stdout.write(line)) return Promise.resolve();
    // Backpressure: settle when the stream drains (or fails).
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        stdout.off("drain", settle);
        stdout.off("error", settle);
        if (error === undefined) resolve();
        else reject(error);
      };
      stdout.once("drain", settle);
      stdout.once("error", settle);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const stdin = this.stdin;
    if (stdin !== undefined) {
      stdin.off("data", this.onData);
      stdin.off("error", this.onStdinError);
      stdin.off("end", this.onStdinEnd);
      stdin.off("close", this.onStdinEnd);
      // A socket of our own on fd 0 is ours to close; a shared stream is paused unless someone else reads it.
      if (this.reusedChunks) stdin.destroy();
      else if (stdin.listenerCount("data") === 0) stdin.pause();
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    this.onclose?.();
    this.options.onClosed?.();
  }

  /** The stream to read: the one given, else fd 0 read directly when it is a pipe or socket, else `process.stdin`. */
  private openStdin(): Readable {
    if (this.options.stdin !== undefined) return this.options.stdin;
    const direct = openDirectStdin(this.options.stdinFd ?? 0, (chunk) => this.receive(chunk));
    if (direct === undefined) return process.stdin;
    this.reusedChunks = true;
    return direct;
  }

  /** Splits chunks into lines without joining more than one line's pieces. */
  private receive(chunk: Buffer): void {
    const limit = this.options.maxLineBytes;
    const last = chunk.length - 1;
    // The usual chunk is one whole line (a client sends a request and waits): read it without slicing the buffer.
    if (this.pendingBytes === 0 && !this.discarding && chunk[last] === 10 && chunk.indexOf(10) === last) {
      if (last > limit) this.answerTooLong();
      else this.handle(withoutCarriageReturn(chunk.toString("utf8", 0, last)));
      return;
    }
    let rest = chunk;
    for (let newline = rest.indexOf(10); newline !== -1; newline = rest.indexOf(10)) {
      const head = rest.subarray(0, newline);
      rest = rest.subarray(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        this.pending = [];
        this.pendingBytes = 0;
        continue;
      }
      const line = this.pendingBytes === 0 ? head : Buffer.concat([...this.pending, head]);
      if (this.pendingBytes > 0) {
        this.pending = [];
        this.pendingBytes = 0;
      }
      if (line.length > limit) this.answerTooLong();
      else this.handle(withoutCarriageReturn(line.toString("utf8")));
      if (this.closed) return;
    }
    if (rest.length === 0 || this.discarding) return;
    // A view of a reused buffer would be overwritten by the next read.
    this.pending.push(this.reusedChunks ? Buffer.from(rest) : rest);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > limit) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.answerTooLong();
    }
  }

  private handle(line: string): void {
    // A message starts with "{": only other lines need the blank-line check.
    if (line.charCodeAt(0) !== 123 && line.trim() === "") return;
    const read = readJsonRpcLine(line);
    if ("error" in read) {
      this.refuse(read.error);
      return;
    }
    try {
      this.onmessage?.(read.message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private answerTooLong(): void {
    const limit = this.options.maxLineBytes;
    this.refuse({
      code: ProtocolErrorCode.InvalidRequest,
      message: `Invalid Request: the message is longer than ${limit} bytes (the limit); it was skipped`,
      id: null,
      issues: [{ field: "(message)", message: `longer than ${limit} bytes` }],
    });
  }

  private refuse(error: JsonRpcRefusal): void {
    const logger = this.options.logger;
    logger.debug("stdio message refused", { code: error.code, id: error.id, detail: error.message });
    const answer = {
      jsonrpc: "2.0",
      id: error.id,
      error: { code: error.code, message: error.message, data: { code: "INVALID_INPUT", issues: error.issues } },
    };
    this.writeLine(`${JSON.stringify(answer)}\n`).catch((sendError: unknown) =>
      logger.warn("could not answer a refused stdio message", { error: sendError }),
    );
  }
}

/** A line without the "\r" a CRLF-ending client leaves at its end. */
function withoutCarriageReturn(line: string): string {
  return line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
}

import { type CallToolResult, type JSONRPCMessage, type McpServer, ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { type JsonRpcRefusal, readJsonRpcLine } from "./json-rpc-message.ts";
import type { Logger } from "./logger.ts";
import { structuredJsonOf } from "./tool-result.ts";

/**
 * Answers a `tools/call` without the SDK's dispatch, or returns undefined to
 * leave it to the SDK. See `createToolCallFastPath` for which calls qualify.
 */
export type ToolCallFastPath = (call: { name: string; arguments: unknown; cancellation: { readonly signal: AbortSignal } }) => Promise<CallToolResult> | undefined;

/**
 * A fast call's cancellation. Its AbortSignal is made when first read: a
 * model-free call rarely reads it, and making one costs more than the rest of
 * the call's bookkeeping. A cancel before that is kept, and the signal is then
 * made already aborted with that reason.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: Error | undefined;

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: Error): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

type RequestId = string | number;

export interface StdioTransportOptions {
  /** Builds the server for the connection (the SDK may build one more for a version probe). */
  createServer: () => McpServer;
  logger: Logger;
  /** Called once when the client goes away (stdin ends) or the transport closes. */
  onClosed: () => void;
  /** Where messages are read and written (default process stdin / stdout; tests pass streams). */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Longest accepted line in bytes (default the SDK's 10 MiB); longer ones are answered -32600 and skipped. */
  maxLineBytes?: number;
  /** Model-free calls answered on the transport itself (see `ToolCallFastPath`). */
  fastPath?: ToolCallFastPath;
}

export interface RunningTransport {
  close(): Promise<void>;
}

/**
 * The SDK's stdio transport with its reading replaced: every line gets an
 * answer. The SDK silently skips lines that are not JSON and reports invalid
 * envelopes only to its error hook, so a client waiting on them would wait
 * forever; here they are answered -32700 / -32600 as the HTTP transport does.
 * It also reports when it closes (stdin ended or closed).
 *
 * And a fast path for calls that need nothing of the SDK: after a 2025-era
 * `initialize` handshake, a `tools/call` without a progress token that
 * `fastPath` accepts is answered here (after the same line checks), skipping
 * the SDK's per-request validation and dispatch (most of a model-free call's
 * cost). Its result is the one the SDK would send (the same `toToolResult`);
 * `notifications/cancelled` aborts it. Everything else (the handshake, 2026
 * clients, listings, resources, model-backed calls, sampling) goes to the SDK.
 */
class AnsweringStdioServerTransport extends StdioServerTransport {
  private closedOnce = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping the rest of an over-long line. */
  private discarding = false;
  /** A 2025-era client has sent `initialize`: calls are plain request/response. */
  private handshaken = false;
  private readonly fastCalls = new Map<RequestId, LazyAbort>();
  private readonly output: NodeJS.WritableStream;

  constructor(
    private readonly options: {
      onClosed: () => void;
      logger: Logger;
      maxLineBytes: number;
      stdin?: NodeJS.ReadableStream;
      stdout?: NodeJS.WritableStream;
      fastPath?: ToolCallFastPath;
    },
  ) {
    super(options.stdin as never, options.stdout as never);
    this._ondata = (chunk: Buffer) => this.receive(chunk);
    this.output = options.stdout ?? process.stdout;
  }

  private receive(chunk: Buffer): void {
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
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.options.maxLineBytes) this.answerTooLong();
      else this.handle(line.toString("utf8").replace(/\r$/, ""));
    }
    if (rest.length === 0 || this.discarding) return;
    this.pending.push(rest);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.options.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.answerTooLong();
    }
  }

  private answerTooLong(): void {
    const limit = this.options.maxLineBytes;
    this.answer({
      code: ProtocolErrorCode.InvalidRequest,
      message: `Invalid Request: the message is longer than ${limit} bytes (the limit); it was skipped`,
      id: null,
      issues: [{ field: "(message)", message: `longer than ${limit} bytes` }],
    });
  }

  private handle(line: string): void {
    if (line.trim() === "") return;
    const read = readJsonRpcLine(line);
    if ("error" in read) {
      this.answer(read.error);
      return;
    }
    try {
      if (!this.answeredHere(read.message)) this.onmessage?.(read.message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private answer(error: JsonRpcRefusal): void {
    this.options.logger.debug("stdio message refused", { code: error.code, id: error.id, detail: error.message });
    this.send({ jsonrpc: "2.0", id: error.id, error: { code: error.code, message: error.message, data: { code: "INVALID_INPUT", issues: error.issues } } } as unknown as JSONRPCMessage).catch(
      (sendError: unknown) => this.options.logger.warn("could not answer a refused stdio message", { error: sendError }),
    );
  }

  /** Handles a fast-path call or its cancellation; false leaves the message to the SDK. */
  private answeredHere(message: JSONRPCMessage): boolean {
    const fastPath = this.options.fastPath;
    if (fastPath === undefined || !("method" in message)) return false;
    const params = message.params as { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown }; requestId?: unknown } | undefined;
    if (message.method === "initialize") {
      this.handshaken = true;
      return false;
    }
    if (message.method === "notifications/cancelled") {
      const requestId = params?.requestId;
      const call = typeof requestId === "string" || typeof requestId === "number" ? this.fastCalls.get(requestId) : undefined;
      call?.abort(new Error("cancelled by the client"));
      return call !== undefined;
    }
    const id = "id" in message ? message.id : undefined;
    if (!this.handshaken || message.method !== "tools/call" || (typeof id !== "string" && typeof id !== "number") || this.fastCalls.has(id)) return false;
    if (typeof params?.name !== "string" || params._meta?.progressToken !== undefined) return false;
    const cancellation = new LazyAbort();
    const result = fastPath({ name: params.name, arguments: params.arguments, cancellation });
    if (result === undefined) return false;
    this.fastCalls.set(id, cancellation);
    result.then(
      (answer) => {
        this.fastCalls.delete(id);
        // A cancelled request is not answered (as the SDK does).
        if (!cancellation.aborted) this.respond(id, answer);
      },
      (error: unknown) => {
        this.fastCalls.delete(id);
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      },
    );
    return true;
  }

  /**
   * Writes a fast-path response. A successful result's text is its structured
   * content as JSON (`toToolResult`), so that JSON is made once and used for
   * both: the line is the one `JSON.stringify` of the whole message gives.
   */
  private respond(id: RequestId, result: CallToolResult): void {
    const text = structuredJsonOf(result);
    const line =
      text !== undefined
        ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}}\n`
        : `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`;
    try {
      this.output.write(line);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  override async close(): Promise<void> {
    for (const call of this.fastCalls.values()) call.abort(new Error("the transport closed"));
    this.fastCalls.clear();
    await super.close();
    this.pending = [];
    this.pendingBytes = 0;
    if (this.closedOnce) return;
    this.closedOnce = true;
    this.options.onClosed();
  }
}

/**
 * Serves MCP over stdin/stdout with the SDK's `serveStdio` (which answers both
 * the 2025 `initialize` handshake and 2026-07-28 clients). Stdout carries
 * JSON-RPC only; everything else goes to the logger (stderr). Every line read
 * is answered: lines that are not JSON get -32700, lines that are not JSON-RPC
 * messages (or nest deeper than the limit) get -32600 with their id when readable.
 */
export function startStdioTransport(options: StdioTransportOptions): RunningTransport {
  const transport = new AnsweringStdioServerTransport({
    onClosed: options.onClosed,
    logger: options.logger,
    maxLineBytes: options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE,
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.stdout ? { stdout: options.stdout } : {}),
    ...(options.fastPath ? { fastPath: options.fastPath } : {}),
  });
  const handle = serveStdio(() => options.createServer(), {
    transport,
    onerror: (error) => options.logger.warn("stdio transport error", { error }),
  });
  return { close: () => handle.close() };
}

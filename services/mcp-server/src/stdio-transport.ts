import { type CallToolResult, type McpServer, parseJSONRPCMessage } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "./logger.ts";
import { structuredJsonOf } from "./tool-result.ts";

/**
 * Answers a `tools/call` without the SDK's dispatch, or returns undefined to
 * leave it to the SDK. See `createToolCallFastPath` for which calls qualify.
 */
export type ToolCallFastPath = (call: { name: string; arguments: unknown; signal: AbortSignal }) => Promise<CallToolResult> | undefined;

export interface StdioTransportOptions {
  /** Builds the server for the connection (the SDK may build one more for a version probe). */
  createServer: () => McpServer;
  logger: Logger;
  /** Called once when the client goes away (stdin ends) or the transport closes. */
  onClosed: () => void;
  /** Model-free calls answered on the transport itself (see `ToolCallFastPath`). */
  fastPath?: ToolCallFastPath;
  /** The streams to serve on (tests); default the process's stdin and stdout. */
  stdin?: Readable;
  stdout?: Writable;
}

export interface RunningTransport {
  close(): Promise<void>;
}

/** What the SDK's stdio transport allows buffered before a newline (10 MiB). */
const maxBufferedBytes = 10 * 1024 * 1024;

type RequestId = string | number;

/**
 * The SDK's stdio transport, reporting when it closes (stdin ended or closed),
 * with a fast path for calls that need nothing of the SDK: after a 2025-era
 * `initialize` handshake, a `tools/call` without a progress token that
 * `fastPath` accepts is answered here, skipping the SDK's per-message schema
 * validation and dispatch (most of a model-free call's cost). Its result is
 * the one the SDK would send (the same `toToolResult`), its cancellation
 * (`notifications/cancelled`) aborts it. Everything else (the handshake, 2026
 * clients, listings, resources, model-backed calls, sampling) goes to the SDK
 * as before.
 */
class ObservedStdioServerTransport extends StdioServerTransport {
  private closedOnce = false;
  private pending: Buffer | undefined;
  /** A 2025-era client has sent `initialize`: calls are plain request/response. */
  private handshaken = false;
  private readonly fastCalls = new Map<RequestId, AbortController>();

  constructor(
    private readonly onClosed: () => void,
    private readonly fastPath: ToolCallFastPath | undefined,
    stdin: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {
    super(stdin, output);
  }

  override _ondata = (chunk: Buffer): void => {
    try {
      if ((this.pending?.length ?? 0) + chunk.length > maxBufferedBytes) {
        this.pending = undefined;
        throw new Error(`ReadBuffer exceeded maximum size of ${maxBufferedBytes} bytes`);
      }
      let pending: Buffer | undefined = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
      for (let newline = pending.indexOf(10); newline >= 0; newline = pending.indexOf(10)) {
        const line = pending.toString("utf8", 0, newline).replace(/\r$/, "");
        pending = pending.subarray(newline + 1);
        this.receive(line);
      }
      this.pending = pending.length > 0 ? pending : undefined;
    } catch (error) {
      this.onerror?.(error as Error);
      this.close().catch(() => {});
    }
  };

  private receive(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return; // as the SDK: a line that is not JSON is skipped
    }
    try {
      if (!this.answeredHere(raw)) this.onmessage?.(parseJSONRPCMessage(raw));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** Handles a fast-path call or its cancellation; false leaves the message to the SDK. */
  private answeredHere(raw: unknown): boolean {
    if (this.fastPath === undefined || typeof raw !== "object" || raw === null) return false;
    const message = raw as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown }; requestId?: unknown } };
    if (message.jsonrpc !== "2.0") return false;
    if (message.method === "initialize") {
      this.handshaken = true;
      return false;
    }
    if (message.method === "notifications/cancelled") {
      const requestId = message.params?.requestId;
      const call = (typeof requestId === "string" || typeof requestId === "number") ? this.fastCalls.get(requestId) : undefined;
      call?.abort(new Error("cancelled by the client"));
      return call !== undefined;
    }
    const id = message.id;
    if (!this.handshaken || message.method !== "tools/call" || (typeof id !== "string" && typeof id !== "number") || this.fastCalls.has(id)) return false;
    const params = message.params;
    if (typeof params?.name !== "string" || params._meta?.progressToken !== undefined) return false;
    const controller = new AbortController();
    const answer = this.fastPath({ name: params.name, arguments: params.arguments, signal: controller.signal });
    if (answer === undefined) return false;
    this.fastCalls.set(id, controller);
    answer.then(
      (result) => {
        this.fastCalls.delete(id);
        // A cancelled request is not answered (as the SDK does).
        if (!controller.signal.aborted) this.answer(id, result);
      },
      (error: unknown) => {
        this.fastCalls.delete(id);
        this.onerror?.(error as Error);
      },
    );
    return true;
  }

  /**
   * Writes a fast-path response. A successful result's text is its structured
   * content as JSON (`toToolResult`), so that JSON is made once and used for
   * both: the line is the one `JSON.stringify` of the whole message gives.
   */
  private answer(id: RequestId, result: CallToolResult): void {
    const text = structuredJsonOf(result);
    const line =
      text !== undefined
        ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}}\n`
        : `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`;
    try {
      this.output.write(line);
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  override async close(): Promise<void> {
    for (const call of this.fastCalls.values()) call.abort(new Error("the transport closed"));
    this.fastCalls.clear();
    this.pending = undefined;
    await super.close();
    if (this.closedOnce) return;
    this.closedOnce = true;
    this.onClosed();
  }
}

/**
 * Serves MCP over stdin/stdout with the SDK's `serveStdio` (which answers both
 * the 2025 `initialize` handshake and 2026-07-28 clients). Stdout carries
 * JSON-RPC only; everything else goes to the logger (stderr).
 */
export function startStdioTransport(options: StdioTransportOptions): RunningTransport {
  const transport = new ObservedStdioServerTransport(options.onClosed, options.fastPath, options.stdin, options.stdout);
  const handle = serveStdio(() => options.createServer(), {
    transport,
    onerror: (error) => options.logger.warn("stdio transport error", { error }),
  });
  return { close: () => handle.close() };
}

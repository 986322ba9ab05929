import type { CallToolResult, JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/server";
import { LazyAbort } from "./lazy-abort.ts";
import type { LineTransport } from "./stdio-line-transport.ts";
import { structuredJsonOf } from "./tool-result.ts";

/**
 * Answers a `tools/call` without the SDK's dispatch, or returns undefined to
 * leave it to the SDK. See `createToolCallFastPath` for which calls qualify.
 * The result is given to `answer` (once) as soon as it is known, which may be
 * before the returned promise settles: what the call still does after its
 * answer (recording its invocation row) is then off the response's path. A
 * call that settles without answering is answered with what it resolves to.
 */
export type ToolCallFastPath = (call: {
  name: string;
  arguments: unknown;
  cancellation: { readonly signal: AbortSignal };
  /** `structuredJson`, when given, is the result's text and its structured content's JSON (the line reuses it). */
  answer: (result: CallToolResult, structuredJson?: string) => void;
}) => Promise<CallToolResult> | undefined;

type RequestId = string | number;
type CallParams =
  | { name?: unknown; arguments?: unknown; _meta?: { progressToken?: unknown }; requestId?: unknown }
  | undefined;

/**
 * A `Transport` around a line transport that answers model-free tool calls
 * itself. After a 2025-era `initialize` handshake, a `tools/call` without a
 * progress token that `fastPath` accepts is answered here, skipping the SDK's
 * per-request validation and dispatch (most of a model-free call's cost). Its
 * result is the one the SDK would send (the same `toToolResult`);
 * `notifications/cancelled` aborts it and it is then not answered (as the SDK
 * does). Everything else (the handshake, 2026 clients, listings, resources,
 * model-backed calls, sampling) passes through to whoever consumes this
 * transport (the SDK's `serveStdio`).
 */
export class FastToolCallTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onerror?: Transport["onerror"];
  onclose?: Transport["onclose"];

  /** A 2025-era client has sent `initialize`: calls are plain request/response. */
  private handshaken = false;
  private readonly calls = new Map<RequestId, LazyAbort>();

  constructor(
    private readonly wire: LineTransport,
    private readonly fastPath: ToolCallFastPath,
  ) {
    wire.onmessage = (message) => {
      if (!this.answeredHere(message)) this.onmessage?.(message);
    };
    wire.onerror = (error) => this.onerror?.(error);
    wire.onclose = () => {
      this.abortAll();
      this.onclose?.();
    };
  }

  start(): Promise<void> {
    return this.wire.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.wire.send(message, options);
  }

  close(): Promise<void> {
    this.abortAll();
    return this.wire.close();
  }

  private abortAll(): void {
    for (const call of this.calls.values()) call.abort(new Error("the transport closed"));
    this.calls.clear();
  }

  /** Handles a fast-path call or its cancellation; false leaves the message to the SDK. */
  private answeredHere(message: JSONRPCMessage): boolean {
    if (!("method" in message)) return false;
    const params = message.params as CallParams;
    if (message.method === "initialize") {
      this.handshaken = true;
      return false;
    }
    if (message.method === "notifications/cancelled") return this.cancelled(params?.requestId);
    const id = "id" in message ? message.id : undefined;
    if (
      !this.handshaken ||
      message.method !== "tools/call" ||
      (typeof id !== "string" && typeof id !== "number") ||
      this.calls.has(id)
    )
      return false;
    if (typeof params?.name !== "string" || params._meta?.progressToken !== undefined) return false;
    const cancellation = new LazyAbort();
    let answered = false;
    const answer = (result: CallToolResult, structuredJson?: string) => {
      if (answered) return;
      answered = true;
      if (!cancellation.aborted) this.respond(id, result, structuredJson);
      this.calls.delete(id);
    };
    const result = this.fastPath({ name: params.name, arguments: params.arguments, cancellation, answer });
    if (result === undefined) return false;
    this.calls.set(id, cancellation);
    result.then(
      (resolved) => answer(resolved),
      (error: unknown) => {
        if (!answered) {
          answered = true;
          this.calls.delete(id);
        }
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      },
    );
    return true;
  }

  /** Aborts a fast call the client cancelled; false (not one of ours) passes the notification on. */
  private cancelled(requestId: unknown): boolean {
    const call = typeof requestId === "string" || typeof requestId === "number" ? this.calls.get(requestId) : undefined;
    call?.abort(new Error("cancelled by the client"));
    return call !== undefined;
  }

  /**
   * Writes a fast-path response. A successful result's text is its structured
   * content as JSON (`toToolResult`), so that JSON is made once and used for
   * both: the line is the one `JSON.stringify` of the whole message gives.
   */
  private respond(id: RequestId, result: CallToolResult, structuredJson?: string): void {
    const text = structuredJson ?? structuredJsonOf(result);
    const line =
      text !== undefined
        ? `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}}}\n`
        : `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`;
    this.wire
      .writeLine(line)
      .catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}

import type { Readable, Writable } from "node:stream";
import { type McpServer, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { FastToolCallTransport, type ToolCallFastPath } from "./fast-tool-call-transport.ts";
import type { Logger } from "./logger.ts";
import { StdioLineTransport } from "./stdio-line-transport.ts";

export type { ToolCallFastPath } from "./fast-tool-call-transport.ts";

export interface StdioTransportOptions {
  /** Builds the server for the connection (the SDK may build one more for a version probe). */
  createServer: () => McpServer;
  logger: Logger;
  /** Called once when the client goes away (stdin ends) or the transport closes. */
  onClosed: () => void;
  /** Where messages are read and written (default the process's stdin, read directly when it is a pipe, and stdout; tests pass streams). */
  stdin?: Readable;
  stdout?: Writable;
  /** Longest accepted line in bytes (default the SDK's 10 MiB); longer ones are answered -32600 and skipped. */
  maxLineBytes?: number;
  /** Model-free calls answered beside the SDK (see `FastToolCallTransport`). */
  fastPath?: ToolCallFastPath;
}

export interface RunningTransport {
  close(): Promise<void>;
}

/**
 * Serves MCP over stdin/stdout with the SDK's `serveStdio` (which answers both
 * the 2025 `initialize` handshake and 2026-07-28 clients), over transports of
 * our own composed through the SDK's public `Transport` interface: a line
 * transport that answers every line (see `StdioLineTransport`), wrapped, when
 * a fast path is given, by `FastToolCallTransport`. Stdout carries JSON-RPC
 * only; everything else goes to the logger (stderr).
 */
export function startStdioTransport(options: StdioTransportOptions): RunningTransport {
  const wire = new StdioLineTransport({
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    stdout: options.stdout ?? process.stdout,
    logger: options.logger,
    maxLineBytes: options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE,
    onClosed: options.onClosed,
  });
  const transport = options.fastPath !== undefined ? new FastToolCallTransport(wire, options.fastPath) : wire;
  const handle = serveStdio(() => options.createServer(), {
    transport,
    onerror: (error) => options.logger.warn("stdio transport error", { error }),
  });
  return { close: () => handle.close() };
}

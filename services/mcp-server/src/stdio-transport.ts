import type { McpServer } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "./logger.ts";

export interface StdioTransportOptions {
  /** Builds the server for the connection (the SDK may build one more for a version probe). */
  createServer: () => McpServer;
  logger: Logger;
  /** Called once when the client goes away (stdin ends) or the transport closes. */
  onClosed: () => void;
}

export interface RunningTransport {
  close(): Promise<void>;
}

/** The SDK's stdio transport, reporting when it closes (stdin ended or closed). */
class ObservedStdioServerTransport extends StdioServerTransport {
  private closedOnce = false;

  constructor(private readonly onClosed: () => void) {
    super();
  }

  override async close(): Promise<void> {
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
  const transport = new ObservedStdioServerTransport(options.onClosed);
  const handle = serveStdio(() => options.createServer(), {
    transport,
    onerror: (error) => options.logger.warn("stdio transport error", { error }),
  });
  return { close: () => handle.close() };
}

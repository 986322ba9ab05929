import {
  Client,
  type ClientOptions,
  type Transport as SdkTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { DeliberateClientError } from "../errors.ts";
import { anySignal, timeoutSignal } from "../signals.ts";
import type { Transport } from "../transport.ts";
import { clientVersion } from "../version.ts";
import { createMcpTransport, fromMcpError } from "./mcp-transport.ts";

interface CommonConnectOptions {
  /** Per-call timeout in ms; default 120,000. */
  timeoutMs?: number;
  /** How long connecting (the handshake) may take; default 30,000 ms. */
  connectTimeoutMs?: number;
  /** Options of the SDK client (e.g. `versionNegotiation: { mode: "auto" }` for the 2026-07-28 protocol). */
  clientOptions?: ClientOptions;
  signal?: AbortSignal;
}

/** `deliberate-mcp --http`: the Streamable HTTP endpoint. */
export interface McpHttpConnectOptions extends CommonConnectOptions {
  /** e.g. `http://127.0.0.1:8080/mcp`. */
  url: string | URL;
  /** Sent as `Authorization: Bearer <token>` (the server's MCP_HTTP_TOKEN). */
  token?: string;
  headers?: Record<string, string>;
  /** The fetch to use; default the runtime's. */
  fetch?: typeof fetch;
}

/** `deliberate-mcp` over stdio (Node only): the command the SDK spawns. */
export interface McpStdioConnectOptions extends CommonConnectOptions {
  command: string;
  args?: string[];
  /** The child's environment (the SDK adds a minimal safe set: PATH, HOME, ...). */
  env?: Record<string, string>;
  cwd?: string;
  /** Where the server's stderr (its logs) goes; default inherited. */
  stderr?: "inherit" | "pipe" | "ignore";
}

export type McpConnectOptions = McpHttpConnectOptions | McpStdioConnectOptions;

/**
 * Connects to `deliberate-mcp` with the official SDK client and returns the
 * transport for `createDeliberateClient`. Streamable HTTP works in every
 * fetch runtime; stdio loads the SDK's Node-only stdio transport on demand.
 * A failed handshake is HANDSHAKE_FAILED (UNAUTHORIZED for a refused token).
 *
 * ```ts
 * const transport = await connectMcp({ url: "http://127.0.0.1:8080/mcp" });
 * const transport = await connectMcp({ command: "npx", args: ["deliberate-mcp"] });
 * ```
 */
export async function connectMcp(options: McpConnectOptions): Promise<Transport & { readonly client: Client }> {
  const client = new Client({ name: "@deliberate/client", version: clientVersion }, options.clientOptions);
  let endpoint: string;
  let sdkTransport: SdkTransport;
  if ("url" in options) {
    const url = new URL(options.url);
    endpoint = url.href;
    const headers = { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) };
    sdkTransport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } else {
    endpoint = [options.command, ...(options.args ?? [])].join(" ");
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    sdkTransport = new StdioClientTransport({
      command: options.command,
      ...(options.args ? { args: options.args } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stderr: options.stderr ?? "inherit",
    });
  }
  const connectTimeout = options.connectTimeoutMs ?? 30_000;
  const timer = timeoutSignal(connectTimeout);
  const combined = anySignal([options.signal, timer.signal]);
  try {
    await client.connect(sdkTransport, { signal: combined.signal, timeout: connectTimeout });
  } catch (error) {
    await client.close().catch(() => {});
    const mapped = fromMcpError(error, `Connecting to ${endpoint}`, connectTimeout, options.signal);
    if (mapped.code === "UNAUTHORIZED" || mapped.code === "ABORTED") throw mapped;
    throw new DeliberateClientError({
      code: timer.timedOut() || mapped.code === "TIMEOUT" ? "TIMEOUT" : "HANDSHAKE_FAILED",
      message: `The MCP handshake with ${endpoint} failed: ${mapped.message}`,
      retryable: true,
      hint: "Check that deliberate-mcp runs there (stdio: the command starts it; HTTP: --http and the URL it logged).",
      cause: error,
    });
  } finally {
    timer.clear();
    combined.dispose();
  }
  return createMcpTransport({
    client,
    endpoint,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}

/** A progress update of a long call (MCP `notifications/progress`, REST server-sent `progress` events). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (ABORTED). */
  signal?: AbortSignal;
  /** This call's timeout in milliseconds (TIMEOUT); default the transport's. */
  timeoutMs?: number;
  /** Progress of long calls, when the server sends it. */
  onProgress?: (update: ProgressUpdate) => void;
}

/** Options a transport reads besides {@link CallOptions}. */
export interface TransportCallOptions extends CallOptions {
  /**
   * Whether repeating the call is harmless (the tool is read-only or idempotent).
   * Over REST, a call that may have reached the server (5xx, timeout, dropped
   * connection) is retried only when this is true; 429/503 with Retry-After always.
   */
  idempotent?: boolean;
}

/** What a server says about itself: who it is, which protocol version was agreed, what it can do. */
export interface ServerDescription {
  surface: "http" | "mcp";
  /** The server's address: base URL, MCP endpoint, or the command line of a stdio server. */
  endpoint: string;
  /** The protocol version in use: the MCP version negotiated, or the REST API version (`v1`). */
  protocolVersion: string;
  /** The server's name and version, when it says. */
  server: { name: string; version: string } | null;
  /** Capability objects by key, e.g. `reasoning` (unvalidated: the caller parses what it uses). */
  capabilities: Record<string, unknown>;
  /** How long the server says this description may be cached, in ms (HTTP Cache-Control / Expires); null when it does not say. */
  ttlMs: number | null;
}

/**
 * The wire under a client: REST (`createHttpTransport`) or MCP
 * (`createMcpTransport` from `@deliberate/client/mcp`). A transport moves JSON
 * and maps failures to `DeliberateClientError`s; validation, host completion
 * and typing happen above it, once, for both.
 */
export interface Transport {
  readonly surface: "http" | "mcp";
  /** The server's address (part of the capability-cache key). */
  readonly endpoint: string;
  /** Calls a tool; resolves with its raw output (which may be a `needs_completion` step). */
  callTool(name: string, input: unknown, options?: TransportCallOptions): Promise<unknown>;
  /** Calls a protocol method (e.g. `reasoning/executeTask`); resolves with its raw result. */
  callMethod(method: string, params: Record<string, unknown>, options?: TransportCallOptions): Promise<unknown>;
  /** Asks the server who it is and what it can do. */
  describe(options?: CallOptions): Promise<ServerDescription>;
  /** A liveness probe (REST `GET /healthz`, MCP `ping`); rejects when the server does not answer. */
  ping(options?: CallOptions): Promise<void>;
  /** The protocol version in use, known without asking the server (REST: the Accept-Version; MCP: the one negotiated). */
  protocolVersion(): string | undefined;
  /** Releases the connection (MCP) or nothing (REST). */
  close(): Promise<void>;
}

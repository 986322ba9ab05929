import { errorBodySchema } from "@deliberate/contracts";
import { type Client, ProtocolError, SdkError, SdkHttpError } from "@modelcontextprotocol/client";
import { type ClientErrorCode, DeliberateClientError, isAbortError } from "../errors.ts";
import type { CallOptions, ServerDescription, Transport, TransportCallOptions } from "../transport.ts";

/** The default per-call timeout over MCP (the services' own request timeout). */
export const mcpToolTimeoutMs = 120_000;

export interface McpTransportOptions {
  /** A connected client of `@modelcontextprotocol/client`. */
  client: Client;
  /** Names the server (its URL or command line): part of the capability-cache key. */
  endpoint: string;
  /** Per-call timeout in ms (reset by progress); default 120,000. */
  timeoutMs?: number;
  /** What `close()` does besides closing the client (e.g. nothing more). */
  onClose?: () => Promise<void>;
}

interface ErrorBodyLike {
  code: string;
  message: string;
  issues?: Array<{ field: string; message: string }>;
  hint?: string;
  retryable: boolean;
}

function fromErrorBody(body: ErrorBodyLike, what: string): DeliberateClientError {
  return new DeliberateClientError({
    code: body.code as ClientErrorCode,
    message: body.message || `${what} failed`,
    issues: body.issues ?? [],
    ...(body.hint !== undefined ? { hint: body.hint } : {}),
    retryable: body.retryable,
  });
}

/** The client error for anything the SDK throws: our error body when the server sent one, else by the SDK's code. */
export function fromMcpError(
  error: unknown,
  what: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): DeliberateClientError {
  if (DeliberateClientError.isInstance(error)) return error;
  if (signal?.aborted)
    return new DeliberateClientError({ code: "ABORTED", message: `${what} was aborted.`, cause: error });
  if (ProtocolError.isInstance(error)) {
    const body = errorBodySchema.safeParse(error.data);
    if (body.success) return fromErrorBody(body.data, what);
    const byCode: Record<number, ClientErrorCode> = {
      [-32601]: "CAPABILITY_MISSING",
      [-32602]: "INVALID_INPUT",
      [-32603]: "INTERNAL",
      [-32001]: "TIMEOUT",
    };
    const code = byCode[error.code] ?? "MALFORMED_RESPONSE";
    return new DeliberateClientError({
      code,
      message: `${what}: ${error.message}`,
      ...(code === "CAPABILITY_MISSING"
        ? { hint: "The server does not serve this method; check its capabilities." }
        : {}),
      retryable: code === "TIMEOUT",
      cause: error,
    });
  }
  if (SdkHttpError.isInstance(error)) {
    const status = error.status;
    const code: ClientErrorCode = status === 401 || status === 403 ? "UNAUTHORIZED" : "CONNECTION_FAILED";
    return new DeliberateClientError({
      code,
      message: `${what}: the MCP endpoint answered ${status} (${error.message}).`,
      status,
      retryable: status >= 500 || status === 429,
      cause: error,
    });
  }
  if (SdkError.isInstance(error)) {
    const byCode: Partial<Record<string, ClientErrorCode>> = {
      REQUEST_TIMEOUT: "TIMEOUT",
      CONNECTION_CLOSED: "CONNECTION_FAILED",
      NOT_CONNECTED: "CONNECTION_FAILED",
      SEND_FAILED: "CONNECTION_FAILED",
      NOT_INITIALIZED: "HANDSHAKE_FAILED",
      CAPABILITY_NOT_SUPPORTED: "CAPABILITY_MISSING",
      INVALID_RESULT: "MALFORMED_RESPONSE",
    };
    const code = byCode[error.code] ?? "CONNECTION_FAILED";
    const message = code === "TIMEOUT" ? `${what} did not answer within ${timeoutMs} ms.` : `${what}: ${error.message}`;
    return new DeliberateClientError({
      code,
      message,
      retryable: code === "TIMEOUT" || code === "CONNECTION_FAILED",
      cause: error,
    });
  }
  if (isAbortError(error))
    return new DeliberateClientError({ code: "ABORTED", message: `${what} was aborted.`, cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new DeliberateClientError({
    code: "CONNECTION_FAILED",
    message: `${what} failed: ${detail}`,
    retryable: true,
    cause: error,
  });
}

/** The output of a tool result: its structuredContent, else the JSON of its text; an error result is thrown with its code. */
export function outputOfToolResult(
  result: { isError?: boolean; content?: unknown; structuredContent?: unknown },
  what: string,
): unknown {
  const blocks = Array.isArray(result.content) ? (result.content as Array<{ type?: unknown; text?: unknown }>) : [];
  const text = blocks.find((block) => block.type === "text" && typeof block.text === "string")?.text as
    | string
    | undefined;
  if (result.isError) {
    let parsed: unknown;
    try {
      parsed = text === undefined ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const body = errorBodySchema.safeParse(parsed);
    if (body.success) throw fromErrorBody(body.data, what);
    throw new DeliberateClientError({ code: "INTERNAL", message: `${what} failed: ${text ?? "no detail"}` });
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (text === undefined)
    throw new DeliberateClientError({
      code: "MALFORMED_RESPONSE",
      message: `${what} returned neither structuredContent nor text.`,
    });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DeliberateClientError({
      code: "MALFORMED_RESPONSE",
      message: `${what} returned text that is not JSON: ${text.slice(0, 200)}`,
      cause: error,
    });
  }
}

/** Accepts any JSON-RPC result: the client validates against the contract itself (so malformed answers get its error). */
const anyResult = {
  "~standard": {
    version: 1 as const,
    vendor: "deliberate",
    validate: (value: unknown) => ({ value }),
  },
};

/**
 * The MCP surface over a connected SDK client (stdio or Streamable HTTP):
 * tools through `tools/call`, protocol methods as custom JSON-RPC requests,
 * capabilities from the `initialize` answer (`experimental`). Progress
 * notifications reach `onProgress` and reset the timeout.
 */
export function createMcpTransport(options: McpTransportOptions): Transport & { readonly client: Client } {
  const { client, endpoint } = options;
  const defaultTimeout = options.timeoutMs ?? mcpToolTimeoutMs;
  const requestOptions = (callOptions: CallOptions) => ({
    timeout: callOptions.timeoutMs ?? defaultTimeout,
    resetTimeoutOnProgress: true,
    ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    ...(callOptions.onProgress ? { onprogress: callOptions.onProgress } : {}),
  });
  return {
    surface: "mcp",
    endpoint,
    client,
    async callTool(name: string, input: unknown, callOptions: TransportCallOptions = {}) {
      const what = `tools/call ${name}`;
      try {
        const result = await client.callTool(
          { name, arguments: (input ?? {}) as Record<string, unknown> },
          requestOptions(callOptions),
        );
        return outputOfToolResult(
          result as { isError?: boolean; content?: unknown; structuredContent?: unknown },
          name,
        );
      } catch (error) {
        throw fromMcpError(error, what, callOptions.timeoutMs ?? defaultTimeout, callOptions.signal);
      }
    },
    async callMethod(method: string, params: Record<string, unknown>, callOptions: TransportCallOptions = {}) {
      try {
        return await client.request({ method, params }, anyResult, requestOptions(callOptions));
      } catch (error) {
        throw fromMcpError(error, method, callOptions.timeoutMs ?? defaultTimeout, callOptions.signal);
      }
    },
    async describe(): Promise<ServerDescription> {
      const version = client.getNegotiatedProtocolVersion();
      if (version === undefined)
        throw new DeliberateClientError({
          code: "HANDSHAKE_FAILED",
          message: `${endpoint}: the MCP client is not connected (no protocol version was negotiated).`,
        });
      const server = client.getServerVersion();
      const experimental = (client.getServerCapabilities()?.experimental ?? {}) as Record<string, unknown>;
      return {
        surface: "mcp",
        endpoint,
        protocolVersion: version,
        server: server ? { name: server.name, version: server.version } : null,
        capabilities: experimental,
        ttlMs: null,
      };
    },
    async ping(callOptions: CallOptions = {}) {
      try {
        await client.ping(requestOptions(callOptions));
      } catch (error) {
        throw fromMcpError(error, "ping", callOptions.timeoutMs ?? defaultTimeout, callOptions.signal);
      }
    },
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    async close() {
      await client.close();
      await options.onClose?.();
    },
  };
}

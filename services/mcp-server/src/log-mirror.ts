import { AsyncLocalStorage } from "node:async_hooks";
import { z } from "zod";
import {
  LOG_LEVEL_META_KEY,
  type LoggingLevel,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";

/** The server's log levels as MCP logging levels. */
const mcpLevels: Readonly<Record<string, LoggingLevel>> = {
  debug: "debug",
  info: "info",
  warn: "warning",
  error: "error",
};
/** MCP logging levels, least severe first. */
const severity: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

interface Listener {
  context: ServerContext;
  /** The lowest level this client asked for; undefined: it asked for none (nothing is sent). */
  threshold: () => LoggingLevel | undefined;
}

/**
 * Mirrors the server's log lines to MCP clients as `notifications/message`.
 * A client gets lines only once it asked for them (`logging/setLevel`, or the
 * log level a 2026-07-28 request carries), at that level or above, and only
 * the lines logged while its own request was served, so one client never sees
 * another's calls. Lines arrive as the logger writes them to its other sinks:
 * already redacted (sensitive fields masked, configured secrets scrubbed).
 */
export interface LogMirror {
  /** A logger sink (see `createLogger`'s `sinks`). */
  readonly sink: (line: string) => void;
  /**
   * Offers logging on `server` (capability and `logging/setLevel`) and returns
   * how to run a request's work so that lines logged meanwhile reach its client.
   */
  attach(server: McpServer): <T>(context: ServerContext, work: () => T) => T;
  /** True once a client asked for log lines (`logging/setLevel`): the stdio fast path, which logs outside any server, then steps aside. */
  listening(): boolean;
}

export function createLogMirror(): LogMirror {
  const current = new AsyncLocalStorage<Listener>();
  let asked = false;
  return {
    listening: () => asked,
    sink(line) {
      const listener = current.getStore();
      const threshold = listener?.threshold();
      if (listener === undefined || threshold === undefined) return;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const level = mcpLevels[String(entry["level"])] ?? "info";
      if (severity.indexOf(level) < severity.indexOf(threshold)) return;
      listener.context.mcpReq
        .notify({ method: "notifications/message", params: { level, logger: "deliberate", data: entry } })
        .catch(() => {});
    },
    attach(server) {
      let requested: LoggingLevel | undefined;
      server.server.registerCapabilities({ logging: {} });
      // Replaces the SDK's handler: its default sends every line to a client that never asked.
      // Params read loosely, so an unknown level is invalid params naming the levels (the SDK's schema would make it an internal error).
      server.server.setRequestHandler(
        "logging/setLevel",
        { params: z.looseObject({}) },
        (params: Record<string, unknown>) => {
          const level = params["level"] as LoggingLevel;
          if (!severity.includes(level)) {
            throw new ProtocolError(
              ProtocolErrorCode.InvalidParams,
              `Invalid params: level: use one of ${severity.join(", ")} (got ${JSON.stringify(level)})`,
            );
          }
          requested = level;
          asked = true;
          return {};
        },
      );
      return (context, work) => {
        const carried = (context.mcpReq.envelope as Record<string, unknown> | undefined)?.[LOG_LEVEL_META_KEY] as
          | LoggingLevel
          | undefined;
        // A client that asked for no lines gets none: run the work outside the storage. On Node 20 its first
        // `run` installs a hook on every promise the process makes from then on (a few µs per tool call).
        if (carried === undefined && requested === undefined) return work();
        return current.run({ context, threshold: () => carried ?? requested }, work);
      };
    },
  };
}

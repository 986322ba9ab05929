import { AsyncLocalStorage } from "node:async_hooks";
import type { LoggingLevel, ServerContext } from "@modelcontextprotocol/server";

/** The server's log levels as MCP logging levels. */
const mcpLevels: Readonly<Record<string, LoggingLevel>> = { debug: "debug", info: "info", warn: "warning", error: "error" };

/**
 * Mirrors the server's log lines to MCP clients as `notifications/message`
 * (`logging/setLevel` sets each client's threshold). A line is sent to the
 * client whose request was being served when it was logged, so one client
 * never sees another's calls. Lines arrive as the logger writes them to its
 * other sinks: already redacted (sensitive fields masked, known secrets scrubbed).
 */
export interface LogMirror {
  /** A logger sink (see `createLogger`'s `sinks`). */
  readonly sink: (line: string) => void;
  /** Runs `work` with the request's context, so lines logged meanwhile reach its client. */
  during<T>(context: ServerContext, work: () => T): T;
}

export function createLogMirror(): LogMirror {
  const current = new AsyncLocalStorage<ServerContext>();
  return {
    sink(line) {
      const context = current.getStore();
      if (context === undefined) return;
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      const level = mcpLevels[String(entry["level"])] ?? "info";
      // The SDK applies the client's threshold (setLevel, or the request's log-level envelope).
      context.mcpReq.log(level, entry, "deliberate").catch(() => {});
    },
    during: (context, work) => current.run(context, work),
  };
}

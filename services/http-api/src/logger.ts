// Logging is shared with the MCP server.
export {
  createLogger,
  createSecretRegistry,
  fileSink,
  isLogLevel,
  logLevels,
  redactValue,
  silentLogger,
  stdoutSink,
} from "@deliberate/logging";
export type { LogFields, LogLevel, Logger, LoggerOptions, SecretRegistry } from "@deliberate/logging";

// Logging is shared with the HTTP API; stdio mode relies on its default sink being stderr.
export { createLogger, isLogLevel, logLevels, silentLogger } from "@deliberate/logging";
export type { LogFields, LogLevel, Logger, LoggerOptions } from "@deliberate/logging";

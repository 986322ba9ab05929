// Logging is shared with the HTTP API; stdio mode relies on its default sink being stderr.
export { createLogger, createSecretRegistry, isLogLevel, logLevels, silentLogger } from "@deliberate/logging";
export type { LogFields, LogLevel, Logger, LoggerOptions, SecretRegistry } from "@deliberate/logging";

export {
  createLogger,
  createSecretRegistry,
  fileSink,
  isLogLevel,
  logLevels,
  redactValue,
  silentLogger,
  stdoutSink,
} from "./logger.ts";
export type { LogFields, LogLevel, Logger, LoggerOptions, SecretRegistry } from "./logger.ts";

import type { ApiConfig } from "./config.ts";
import {
  createLogger,
  createSecretRegistry,
  fileSink,
  stdoutSink,
  type Logger,
  type SecretRegistry,
} from "./logger.ts";

/** The service's logger and the secrets it redacts. */
export interface ServiceLogging {
  readonly logger: Logger;
  readonly secrets: SecretRegistry;
}

/**
 * The secrets every log line is redacted against (provider keys, the API token, the callback secret), and the logger
 * writing to `sinks` (default stderr) plus the REASONING_LOG_FILE / REASONING_LOG_STDOUT mirrors. A given `logger` is
 * used as is.
 */
export function createServiceLogging(
  config: ApiConfig,
  options: { logger?: Logger; logSinks?: ReadonlyArray<(line: string) => void> },
): ServiceLogging {
  const secrets = createSecretRegistry([
    config.providers.anthropic.apiKey,
    config.providers.openai.apiKey,
    config.http.apiToken,
    config.callbacks.secret,
  ]);
  const sinks: Array<(line: string) => void> = options.logSinks
    ? [...options.logSinks]
    : [(line) => void process.stderr.write(line)];
  if (config.logFile) sinks.push(fileSink(config.logFile));
  if (config.logStdout) sinks.push(stdoutSink);
  const logger = options.logger ?? createLogger({ level: config.logLevel, sinks, secrets });
  return { logger, secrets };
}

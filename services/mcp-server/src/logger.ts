/** Log levels, least severe first. */
export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (logLevels as readonly string[]).includes(value);
}

/** Extra structured fields of one log line. */
export type LogFields = Record<string, unknown>;

/**
 * Structured logs: one JSON object per line on stderr. In stdio mode stdout
 * carries JSON-RPC only, so nothing else may ever write there.
 */
export interface Logger {
  readonly level: LogLevel;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go; default `process.stderr`. */
  write?: (line: string) => void;
  /** Timestamp source; default the system clock. */
  now?: () => Date;
}

function serializable(value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, ...(value.stack ? { stack: value.stack } : {}) };
  }
  return value;
}

/** Creates a logger that drops lines below `level` and writes JSON lines to stderr. */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = logLevels.indexOf(options.level);
  const write = options.write ?? ((line: string) => void process.stderr.write(line));
  const now = options.now ?? (() => new Date());

  function log(level: LogLevel, message: string, fields: LogFields | undefined): void {
    if (logLevels.indexOf(level) < threshold) return;
    const entry: Record<string, unknown> = { time: now().toISOString(), level, message };
    for (const [key, value] of Object.entries(fields ?? {})) {
      // A field never overwrites time, level or message.
      if (value !== undefined && !(key in entry)) entry[key] = serializable(value);
    }
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify({ time: entry["time"], level, message, note: "fields were not serialisable" });
    }
    write(`${line}\n`);
  }

  return {
    level: options.level,
    debug: (message, fields) => log("debug", message, fields),
    info: (message, fields) => log("info", message, fields),
    warn: (message, fields) => log("warn", message, fields),
    error: (message, fields) => log("error", message, fields),
  };
}

/** A logger that writes nothing (for tests and embedding). */
export const silentLogger: Logger = { level: "error", debug() {}, info() {}, warn() {}, error() {} };

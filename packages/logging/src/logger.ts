import { appendFileSync } from "node:fs";

/** Log levels, least severe first. */
export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (logLevels as readonly string[]).includes(value);
}

/** Extra structured fields of one log line. */
export type LogFields = Record<string, unknown>;

/**
 * Structured logs: one JSON object per line, on stderr by default (in the MCP
 * server's stdio mode stdout carries JSON-RPC only, so nothing else may write there).
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
  /** Where lines go (each ends with a newline); default stderr. */
  sinks?: ReadonlyArray<(line: string) => void>;
  /** Secret values to mask wherever they appear (API keys, the API token, ...). */
  secrets?: SecretRegistry;
  now?: () => Date;
}

/**
 * Secret values known to the process: configured keys and keys passed in
 * requests while they are in use. Every log line and telemetry event is
 * scrubbed of them, so a key can never reach a log even through an error message.
 */
export interface SecretRegistry {
  add(secret: string | undefined): void;
  delete(secret: string | undefined): void;
  /** `text` with every known secret replaced by `[redacted]`. */
  scrub(text: string): string;
}

/** Secrets shorter than this are not scrubbed (they would mangle ordinary text). */
const minimumSecretLength = 8;

export function createSecretRegistry(initial: ReadonlyArray<string | undefined> = []): SecretRegistry {
  const counts = new Map<string, number>();
  const registry: SecretRegistry = {
    add(secret) {
      if (secret === undefined || secret.length < minimumSecretLength) return;
      counts.set(secret, (counts.get(secret) ?? 0) + 1);
    },
    delete(secret) {
      if (secret === undefined) return;
      const count = counts.get(secret);
      if (count === undefined) return;
      if (count <= 1) counts.delete(secret);
      else counts.set(secret, count - 1);
    },
    scrub(text) {
      let scrubbed = text;
      for (const secret of counts.keys()) {
        if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join("[redacted]");
      }
      return scrubbed;
    },
  };
  for (const secret of initial) registry.add(secret);
  return registry;
}

/** Field names whose values are never logged, whatever they hold. */
const sensitiveKey = /^(api[_-]?key|authorization|x-api-key|token|password|secret|cookie|set-cookie)$/i;

/** A copy of `value` fit for logs: sensitive keys masked, errors as plain objects, depth-limited. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    return {
      name: value.name,
      message: value.message,
      ...("code" in value ? { code: (value as { code: unknown }).code } : {}),
      ...(value.stack ? { stack: value.stack } : {}),
    };
  }
  if (depth > 8) return "[truncated]";
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  if (value !== null && typeof value === "object") {
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      copy[key] = sensitiveKey.test(key) ? "[redacted]" : redactValue(item, depth + 1);
    return copy;
  }
  return value;
}

/**
 * A sink writing to a standard stream. When the stream's reader goes away (EPIPE: the parent closed the pipe),
 * its error is taken here and later lines are dropped: left unhandled, the error would reach the process's
 * last-resort handler, whose own log line would fail the same way, over and over, and starve the signals
 * that should stop the service.
 */
function standardStreamSink(stream: NodeJS.WriteStream): (line: string) => void {
  let closed = false;
  let watched = false;
  return (line) => {
    if (!watched) {
      watched = true;
      stream.on("error", () => {
        closed = true;
      });
    }
    if (closed || stream.destroyed) return;
    stream.write(line);
  };
}

const stderrSink = standardStreamSink(process.stderr);

/** A sink appending lines to a file (synchronously, so nothing is lost at exit). */
export function fileSink(path: string): (line: string) => void {
  return (line) => {
    try {
      appendFileSync(path, line);
    } catch {
      // A broken log file must not take the service down; stderr still has the line.
    }
  };
}

/** Lines to stdout (the HTTP API's default), dropped once its reader has gone. */
export const stdoutSink = standardStreamSink(process.stdout);

/** Creates a logger that drops lines below `level` and writes scrubbed JSON lines to every sink. */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = logLevels.indexOf(options.level);
  const sinks = options.sinks ?? [stderrSink];
  const now = options.now ?? (() => new Date());

  function log(level: LogLevel, message: string, fields: LogFields | undefined): void {
    if (logLevels.indexOf(level) < threshold) return;
    const entry: Record<string, unknown> = { time: now().toISOString(), level, message };
    for (const [key, value] of Object.entries(fields ?? {})) {
      if (value !== undefined && !(key in entry))
        entry[key] = sensitiveKey.test(key) ? "[redacted]" : redactValue(value);
    }
    let line: string;
    try {
      line = JSON.stringify(entry);
    } catch {
      line = JSON.stringify({ time: entry["time"], level, message, note: "fields were not serialisable" });
    }
    if (options.secrets) line = options.secrets.scrub(line);
    for (const sink of sinks) sink(`${line}\n`);
  }

  return {
    level: options.level,
    debug: (message, fields) => log("debug", message, fields),
    info: (message, fields) => log("info", message, fields),
    warn: (message, fields) => log("warn", message, fields),
    error: (message, fields) => log("error", message, fields),
  };
}

/** A logger that writes nothing. */
export const silentLogger: Logger = { level: "error", debug() {}, info() {}, warn() {}, error() {} };

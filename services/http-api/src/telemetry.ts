import { isTransientDatabaseFault } from "@deliberate/base";
import type { Clock, IdGenerator } from "@deliberate/engine";
import type { ApiRepositories } from "./store/contribution.ts";
import type { ReasoningLogEntry } from "./store/repositories/reasoning-log.repository.ts";
import { logLevels, redactValue, type Logger, type SecretRegistry } from "./logger.ts";

/** One telemetry event; becomes a `reasoning_logs` row and a JSON log line. */
export interface TelemetryEvent {
  /** Dotted name, e.g. `intent.decided`. */
  event: string;
  level?: "debug" | "info" | "warn" | "error";
  request_id?: string | undefined;
  intent_id?: string | undefined;
  job_id?: string | undefined;
  session_id?: string | undefined;
  correlation_id?: string | undefined;
  duration_ms?: number | undefined;
  data?: Record<string, unknown>;
}

/** Structured telemetry: the `reasoning_logs` table plus the JSON log (and its mirrors). */
export interface Telemetry {
  /** Records without waiting; a failed write is logged, never thrown. */
  record(event: TelemetryEvent): void;
  /** Waits for writes in flight (before closing the database). */
  flush(): Promise<void>;
}

export interface TelemetryOptions {
  store: Pick<ApiRepositories, "reasoningLogs">;
  logger: Logger;
  secrets: SecretRegistry;
  clock: Clock;
  ids: IdGenerator;
}

/** Events are written in batches: after this long, or at `batchSize` events, whichever comes first. */
const flushDelayMs = 20;
const batchSize = 200;
/** While the database is unavailable, events are kept (up to this many) and written again every `retryDelayMs`. */
const maxHeldEvents = 10_000;
const retryDelayMs = 1000;

export function createTelemetry(options: TelemetryOptions): Telemetry {
  const pending = new Set<Promise<void>>();
  let buffer: ReasoningLogEntry[] = [];
  let timer: NodeJS.Timeout | undefined;

  function write(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return;
    const batch = buffer;
    buffer = [];
    const done = options.store.reasoningLogs
      .recordMany(batch)
      .catch((error: unknown) => {
        if (isTransientDatabaseFault(error) && buffer.length + batch.length <= maxHeldEvents) {
          // The database is away: keep the events (oldest first) and write them once it answers.
          buffer = [...batch, ...buffer];
          if (!timer) {
            timer = setTimeout(write, retryDelayMs);
            timer.unref();
          }
          return;
        }
        options.logger.warn("telemetry write failed", { error, events: batch.length });
      })
      .finally(() => pending.delete(done));
    pending.add(done);
  }

  return {
    record(event) {
      const level = event.level ?? "info";
      // Masked keys, then every known secret scrubbed from the serialised form.
      const redacted = redactValue(event.data ?? {}) as Record<string, unknown>;
      const serialised = JSON.stringify(redacted);
      const scrubbed = options.secrets.scrub(serialised);
      const data = scrubbed === serialised ? redacted : (JSON.parse(scrubbed) as Record<string, unknown>);
      const entry: ReasoningLogEntry = {
        id: options.ids.next("log"),
        created_at: options.clock.now().toISOString(),
        level,
        event: event.event,
        request_id: event.request_id ?? null,
        intent_id: event.intent_id ?? null,
        job_id: event.job_id ?? null,
        session_id: event.session_id ?? null,
        correlation_id: event.correlation_id ?? null,
        duration_ms: event.duration_ms ?? null,
        data,
      };
      if (logLevels.indexOf(level) >= logLevels.indexOf(options.logger.level)) {
        const { id: _id, created_at: _createdAt, level: _level, event: name, data: _data, ...ids } = entry;
        options.logger[level](name, {
          ...Object.fromEntries(Object.entries(ids).filter(([, value]) => value !== null)),
          ...data,
        });
      }
      buffer.push(entry);
      if (buffer.length >= batchSize) write();
      else if (!timer) {
        timer = setTimeout(write, flushDelayMs);
        timer.unref();
      }
    },
    async flush() {
      write();
      await Promise.all([...pending]);
    },
  };
}

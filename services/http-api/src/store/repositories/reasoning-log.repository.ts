import type { DatabaseExecutor } from "../tables.ts";
import { parseJsonObject, preparedInsert } from "@deliberate/store";
import type { ReasoningLogRow } from "../tables/reasoning-log.table.ts";

/** One telemetry event of the HTTP API. */
export interface ReasoningLogEntry {
  id: string;
  created_at: string;
  level: "debug" | "info" | "warn" | "error";
  event: string;
  request_id?: string | null;
  intent_id?: string | null;
  job_id?: string | null;
  session_id?: string | null;
  correlation_id?: string | null;
  duration_ms?: number | null;
  data?: Record<string, unknown>;
}

export interface ReasoningLogFilter {
  event?: string;
  requestId?: string;
  jobId?: string;
  since?: string;
  limit?: number;
}

/** Rows per INSERT (11 parameters each; far below every dialect's parameter limit). */
const batchRows = 500;

function toRow(entry: ReasoningLogEntry): ReasoningLogRow {
  return {
    id: entry.id,
    created_at: entry.created_at,
    level: entry.level,
    event: entry.event,
    request_id: entry.request_id ?? null,
    intent_id: entry.intent_id ?? null,
    job_id: entry.job_id ?? null,
    session_id: entry.session_id ?? null,
    correlation_id: entry.correlation_id ?? null,
    duration_ms: entry.duration_ms ?? null,
    data: JSON.stringify(entry.data ?? {}),
  };
}

/** A batch of events: one statement compiled once per row count (see preparedInsert). */
const insertRows = preparedInsert(
  [
    "id",
    "created_at",
    "level",
    "event",
    "request_id",
    "intent_id",
    "job_id",
    "session_id",
    "correlation_id",
    "duration_ms",
    "data",
  ] as const,
  (db: DatabaseExecutor, rows) => db.insertInto("reasoning_logs").values(rows as never),
  batchRows,
);

function toEntry(row: ReasoningLogRow): Required<ReasoningLogEntry> {
  return {
    ...row,
    level: row.level as ReasoningLogEntry["level"],
    data: parseJsonObject(row.data, `reasoning log ${row.id}`),
  };
}

/** `reasoning_logs`: telemetry events, written by the HTTP API and read by diagnostics. */
export function createReasoningLogRepository(db: DatabaseExecutor) {
  return {
    async record(entry: ReasoningLogEntry): Promise<void> {
      await db.insertInto("reasoning_logs").values(toRow(entry)).execute();
    },

    /** Writes several events in one statement (callers batch to keep telemetry cheap). */
    async recordMany(entries: readonly ReasoningLogEntry[]): Promise<void> {
      await insertRows(db, entries.map(toRow));
    },

    /** Newest first. */
    async list(filter: ReasoningLogFilter = {}): Promise<Array<Required<ReasoningLogEntry>>> {
      let query = db.selectFrom("reasoning_logs").selectAll();
      if (filter.event !== undefined) query = query.where("event", "=", filter.event);
      if (filter.requestId !== undefined) query = query.where("request_id", "=", filter.requestId);
      if (filter.jobId !== undefined) query = query.where("job_id", "=", filter.jobId);
      if (filter.since !== undefined) query = query.where("created_at", ">=", filter.since);
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 1000)
        .execute();
      return rows.map(toEntry);
    },

    /** Retention: deletes events older than `before`; returns how many. */
    async deleteOlderThan(before: string): Promise<number> {
      const result = await db.deleteFrom("reasoning_logs").where("created_at", "<", before).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
export type ReasoningLogRepository = ReturnType<typeof createReasoningLogRepository>;

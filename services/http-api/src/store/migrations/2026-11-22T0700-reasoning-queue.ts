import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

// Shipped migrations are never edited; add a new file instead. Booleans, timestamps and JSON take
// each dialect's own types (columnTypes), which on SQLite are the integer and text columns shipped.
export const reasoningQueue: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema
      .createTable("reasoning_queue")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("type", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("correlation_id", "text")
      .addColumn("session_id", "text")
      .addColumn("payload", types.json, (column) => column.notNull())
      .addColumn("result", types.json)
      .addColumn("error", types.json)
      .addColumn("callback_url", "text")
      .addColumn("callback_status", "text", (column) => column.notNull().defaultTo("none"))
      .addColumn("callback_attempts", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("callback_error", "text")
      .addColumn("attempts", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("max_attempts", "integer", (column) => column.notNull())
      .addColumn("owner", "text")
      .addColumn("pinned", types.boolean, (column) => column.notNull().defaultTo(types.false))
      .addColumn("lease_expires_at", types.timestamp)
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addColumn("started_at", types.timestamp)
      .addColumn("finished_at", types.timestamp)
      .execute();
    await db.schema
      .createIndex("reasoning_queue_status")
      .on("reasoning_queue")
      .columns(["status", "created_at"])
      .execute();
    await db.schema.createIndex("reasoning_queue_correlation").on("reasoning_queue").column("correlation_id").execute();

    await db.schema
      .createTable("reasoning_logs")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("level", "text", (column) => column.notNull())
      .addColumn("event", "text", (column) => column.notNull())
      .addColumn("request_id", "text")
      .addColumn("intent_id", "text")
      .addColumn("job_id", "text")
      .addColumn("session_id", "text")
      .addColumn("correlation_id", "text")
      .addColumn("duration_ms", "double precision")
      .addColumn("data", types.json, (column) => column.notNull().defaultTo("{}"))
      .execute();
    await db.schema.createIndex("reasoning_logs_created").on("reasoning_logs").column("created_at").execute();
    await db.schema.createIndex("reasoning_logs_event").on("reasoning_logs").columns(["event", "created_at"]).execute();
  },
};

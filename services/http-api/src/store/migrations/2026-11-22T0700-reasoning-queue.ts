import type { Kysely, Migration } from "kysely";

// Shipped migrations are never edited; add a new file instead.
export const reasoningQueue: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable("reasoning_queue")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("type", "text", (column) => column.notNull())
      .addColumn("status", "text", (column) => column.notNull())
      .addColumn("correlation_id", "text")
      .addColumn("session_id", "text")
      .addColumn("payload", "text", (column) => column.notNull())
      .addColumn("result", "text")
      .addColumn("error", "text")
      .addColumn("callback_url", "text")
      .addColumn("callback_status", "text", (column) => column.notNull().defaultTo("none"))
      .addColumn("callback_attempts", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("callback_error", "text")
      .addColumn("attempts", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("max_attempts", "integer", (column) => column.notNull())
      .addColumn("owner", "text")
      .addColumn("pinned", "integer", (column) => column.notNull().defaultTo(0))
      .addColumn("lease_expires_at", "text")
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("updated_at", "text", (column) => column.notNull())
      .addColumn("started_at", "text")
      .addColumn("finished_at", "text")
      .execute();
    await db.schema.createIndex("reasoning_queue_status").on("reasoning_queue").columns(["status", "created_at"]).execute();
    await db.schema.createIndex("reasoning_queue_correlation").on("reasoning_queue").column("correlation_id").execute();

    await db.schema
      .createTable("reasoning_logs")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("created_at", "text", (column) => column.notNull())
      .addColumn("level", "text", (column) => column.notNull())
      .addColumn("event", "text", (column) => column.notNull())
      .addColumn("request_id", "text")
      .addColumn("intent_id", "text")
      .addColumn("job_id", "text")
      .addColumn("session_id", "text")
      .addColumn("correlation_id", "text")
      .addColumn("duration_ms", "double precision")
      .addColumn("data", "text", (column) => column.notNull().defaultTo("{}"))
      .execute();
    await db.schema.createIndex("reasoning_logs_created").on("reasoning_logs").column("created_at").execute();
    await db.schema.createIndex("reasoning_logs_event").on("reasoning_logs").columns(["event", "created_at"]).execute();
  },
};

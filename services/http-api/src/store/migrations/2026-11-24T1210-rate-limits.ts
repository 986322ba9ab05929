import { columnTypes } from "@deliberate/store";
import type { Kysely, Migration } from "kysely";

/**
 * `rate_limits`: one fixed-window counter per client key, shared by every
 * replica on the database (`REASONING_API_RATE_LIMIT_STORE=database`).
 * `reasoning_queue_claim`: the index the queue's claim query walks.
 */
export const rateLimits: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema
      .createTable("rate_limits")
      .addColumn("key", "text", (column) => column.primaryKey())
      .addColumn("window_start", types.timestamp, (column) => column.notNull())
      .addColumn("count", "integer", (column) => column.notNull())
      .execute();
    await db.schema.createIndex("rate_limits_window").on("rate_limits").column("window_start").execute();
    await db.schema
      .createIndex("reasoning_queue_lease")
      .on("reasoning_queue")
      .columns(["status", "lease_expires_at"])
      .execute();
  },
};

import type { Kysely, Migration } from "kysely";
import { columnTypes } from "../column-types.ts";

export const suspendedCalls: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema
      .createTable("suspended_calls")
      .addColumn("id", "text", (column) => column.primaryKey())
      .addColumn("tool", "text", (column) => column.notNull())
      .addColumn("arguments", types.json, (column) => column.notNull())
      .addColumn("answers", types.json, (column) => column.notNull())
      .addColumn("pending", types.json, (column) => column.notNull())
      .addColumn("rounds", "integer", (column) => column.notNull())
      .addColumn("created_at", types.timestamp, (column) => column.notNull())
      .addColumn("updated_at", types.timestamp, (column) => column.notNull())
      .addColumn("expires_at", types.timestamp, (column) => column.notNull())
      .execute();
    await db.schema.createIndex("suspended_calls_expires").on("suspended_calls").column("expires_at").execute();
  },
};

import type { Kysely, Migration } from "kysely";
import { columnTypes } from "../column-types.ts";

/**
 * `deliberate_sequences`: one counter row per numbered group (a session's
 * thoughts, a graph's nodes...), so positions are reserved atomically instead
 * of read as max+1 (`reservePositions`). `deliberate_leases`: named leases for
 * leader election among replicas (`createLeaderLock`).
 */
export const sequencesAndLeases: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema
      .createTable("deliberate_sequences")
      .addColumn("scope", "text", (column) => column.notNull())
      .addColumn("key", "text", (column) => column.notNull())
      .addColumn("next_position", "integer", (column) => column.notNull())
      .addPrimaryKeyConstraint("deliberate_sequences_pk", ["scope", "key"])
      .execute();
    await db.schema
      .createTable("deliberate_leases")
      .addColumn("name", "text", (column) => column.primaryKey())
      .addColumn("holder", "text", (column) => column.notNull())
      .addColumn("acquired_at", types.timestamp, (column) => column.notNull())
      .addColumn("expires_at", types.timestamp, (column) => column.notNull())
      .execute();
  },
};

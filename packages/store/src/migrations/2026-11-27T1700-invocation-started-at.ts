import { type Kysely, type Migration, sql } from "kysely";
import { columnTypes } from "../column-types.ts";
import { dialectOf } from "../dialect.ts";

/**
 * When each call started (`created_at` is when it finished and was recorded).
 * Self-improvement attributes a call to the settings in force when it started:
 * a call that began under the old setting and finished after a change ran
 * under the old one. Rows recorded before this column get their start from
 * their finish less their latency (the same value the engine now writes).
 */
export const invocationStartedAt: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const types = columnTypes(db);
    await db.schema.alterTable("invocations").addColumn("started_at", types.timestamp).execute();
    if (dialectOf(db) === "postgres") {
      await sql`update invocations set started_at = created_at - latency_ms * interval '1 millisecond'`.execute(db);
    } else {
      await sql`update invocations set started_at = strftime('%Y-%m-%dT%H:%M:%fZ', created_at, '-' || (latency_ms / 1000.0) || ' seconds')`.execute(
        db,
      );
    }
  },
  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("invocations").dropColumn("started_at").execute();
  },
};

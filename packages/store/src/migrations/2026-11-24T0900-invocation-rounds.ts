import type { Kysely, Migration } from "kysely";

/**
 * How many rounds an invocation took: 1 for a call that ran at once, the
 * number of replays (suspensions plus the final one) for a host-executed call.
 * Portable SQL: an integer column with a default, on SQLite and Postgres alike.
 */
export const invocationRounds: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .alterTable("invocations")
      .addColumn("rounds", "integer", (column) => column.notNull().defaultTo(1))
      .execute();
  },
};

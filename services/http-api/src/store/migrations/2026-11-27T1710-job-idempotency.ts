import type { Kysely, Migration } from "kysely";

/**
 * `correlation_id` as an idempotency key: a job enqueued with one gets
 * `idempotency_key` = `<type>:<correlation_id>` (unique) and the digest of
 * its request, so the same key returns the same job and a different request
 * under it is refused. Rows written before (possibly several per correlation
 * id) keep a NULL key, which a unique index allows any number of times on
 * SQLite and Postgres alike.
 */
export const jobIdempotency: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable("reasoning_queue").addColumn("idempotency_key", "text").execute();
    await db.schema.alterTable("reasoning_queue").addColumn("request_digest", "text").execute();
    await db.schema
      .createIndex("reasoning_queue_idempotency")
      .on("reasoning_queue")
      .column("idempotency_key")
      .unique()
      .execute();
  },
};

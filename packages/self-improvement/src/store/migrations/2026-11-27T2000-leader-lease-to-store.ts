import { type Kysely, type Migration, sql } from "kysely";

/**
 * The loop's leader lease moves to the store's `deliberate_leases`
 * (`createLeaderLock`), and `self_improvement_leases` goes. A lease held when
 * this runs is carried over as it stands (holder, since, until), so the leader
 * keeps leading and no other replica takes over before it lapses; where both
 * tables hold the name, the later expiry wins. Replicas still running the
 * version before this one fail their next cycle (the table is gone) instead of
 * electing a second leader beside the new one.
 */
export const leaderLeaseToStore: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    // `where true`: SQLite needs it to read `on conflict` after a select as the upsert's.
    await sql`
      insert into deliberate_leases (name, holder, acquired_at, expires_at)
      select name, holder, acquired_at, expires_at from self_improvement_leases where true
      on conflict (name) do update
        set holder = excluded.holder, acquired_at = excluded.acquired_at, expires_at = excluded.expires_at
        where excluded.expires_at > deliberate_leases.expires_at`.execute(db);
    await db.schema.dropTable("self_improvement_leases").execute();
  },
};

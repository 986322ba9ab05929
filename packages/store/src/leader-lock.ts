import { type Kysely, sql } from "kysely";

export interface LeaderLockOptions {
  /** What is led, e.g. `self-improvement`; one leader per name across every process sharing the database. */
  name: string;
  /** This process's identity (e.g. host:pid:random); the same holder may re-acquire and renew. */
  holder: string;
  /** How long leadership lasts without renewal; a holder that dies loses it after this. */
  ttlMs: number;
  /** Current time; default `Date.now`. */
  now?: () => number;
}

/** A lease-based leader election over the store's database (SQLite or Postgres alike). */
export interface LeaderLock {
  readonly name: string;
  readonly holder: string;
  /**
   * Becomes (or stays) the leader when nobody holds an unexpired lease, or this
   * holder does; extends the lease by `ttlMs`. True while this process leads.
   */
  acquire(): Promise<boolean>;
  /** Gives leadership up at once (another process may take it on its next acquire). */
  release(): Promise<void>;
  /** Who leads now, since when and until when, or undefined when nobody holds an unexpired lease. */
  current(): Promise<{ holder: string; acquired_at: string; expires_at: string } | undefined>;
}

/**
 * A leader lock named `options.name`: at most one holder at a time among all
 * processes sharing the database, as a lease row (`deliberate_leases`) taken
 * with one conditional upsert. Call `acquire()` more often than `ttlMs` (e.g.
 * every ttl/3) to keep leading; a crashed leader's lease lapses after `ttlMs`.
 * Leases compare the clocks of the processes involved, so keep `ttlMs` well
 * above their skew. Work done as the leader should still be idempotent: a
 * paused process may act once after its lease lapsed.
 *
 * ```ts
 * const lock = createLeaderLock(store.db, { name: "self-improvement", holder: owner, ttlMs: 30_000 });
 * setInterval(async () => { if (await lock.acquire()) await improveOnce(); }, 10_000);
 * ```
 */
// biome-ignore lint/suspicious/noExplicitAny: any table schema
export function createLeaderLock(db: Kysely<any>, options: LeaderLockOptions): LeaderLock {
  if (!(options.ttlMs > 0)) throw new Error(`createLeaderLock: ttlMs must be > 0 (got ${options.ttlMs})`);
  const now = options.now ?? Date.now;
  const iso = (milliseconds: number) => new Date(milliseconds).toISOString();
  return {
    name: options.name,
    holder: options.holder,
    async acquire() {
      const time = now();
      const result = await sql<{ holder: string }>`
        insert into deliberate_leases (name, holder, acquired_at, expires_at)
        values (${options.name}, ${options.holder}, ${iso(time)}, ${iso(time + options.ttlMs)})
        on conflict (name) do update
          set holder = excluded.holder,
              acquired_at = case when deliberate_leases.holder = excluded.holder then deliberate_leases.acquired_at else excluded.acquired_at end,
              expires_at = excluded.expires_at
          where deliberate_leases.holder = excluded.holder or deliberate_leases.expires_at <= ${iso(time)}
        returning holder`.execute(db);
      return result.rows.length === 1;
    },
    async release() {
      await sql`delete from deliberate_leases where name = ${options.name} and holder = ${options.holder}`.execute(db);
    },
    async current() {
      const result = await sql<{ holder: string; acquired_at: string; expires_at: string }>`
        select holder, acquired_at, expires_at from deliberate_leases where name = ${options.name} and expires_at > ${iso(now())}`.execute(db);
      const row = result.rows[0];
      return row ? { holder: row.holder, acquired_at: row.acquired_at, expires_at: row.expires_at } : undefined;
    },
  };
}

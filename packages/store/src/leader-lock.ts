import { type Kysely, sql } from "kysely";

export interface LeaderLockOptions {
  /** What is led, e.g. `self-improvement`; one leader per name across every process sharing the database. */
  name: string;
  /** This process's identity (e.g. host:pid:random); the same holder may re-acquire and renew. */
  holder: string;
  /** How long leadership lasts without renewal; a holder that dies loses it after this. */
  ttlMs: number;
  /** Current time in milliseconds; default `Date.now`. */
  now?: () => number;
}

/** A lease row of `deliberate_leases`: who holds it, since when, and until when. */
export interface Lease {
  holder: string;
  acquired_at: string;
  expires_at: string;
}

/** What {@link LeaderLock.claim} found: whether this holder leads, and the lease in force (this holder's or another's). */
export interface LeaseClaim extends Lease {
  held: boolean;
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
  /** As {@link LeaderLock.acquire}, and says whose lease is in force: this holder's, or the leader's it lost to. */
  claim(): Promise<LeaseClaim>;
  /** Gives leadership up at once (another process may take it on its next acquire). */
  release(): Promise<void>;
  /** Who leads now, since when and until when, or undefined when nobody holds an unexpired lease. */
  current(): Promise<Lease | undefined>;
}

/** Upserts one claim tries while the standing lease vanishes between its statements (a release racing it). */
const maxClaimAttempts = 5;

// biome-ignore lint/suspicious/noExplicitAny: any table schema
type AnyDatabase = Kysely<any>;

/**
 * The lease `name` as stored, lapsed or not (compare `expires_at` with the time
 * to tell); undefined when nobody took it or its holder released it. For
 * reports, which show a crashed leader's lapsed lease too; to lead, use
 * {@link createLeaderLock}.
 */
export async function readLease(db: AnyDatabase, name: string): Promise<Lease | undefined> {
  const result =
    await sql<Lease>`select holder, acquired_at, expires_at from deliberate_leases where name = ${name}`.execute(db);
  const row = result.rows[0];
  return row ? { holder: row.holder, acquired_at: row.acquired_at, expires_at: row.expires_at } : undefined;
}

/**
 * A leader lock named `options.name`: at most one holder at a time among all
 * processes sharing the database, as a lease row (`deliberate_leases`) taken
 * with one conditional upsert. Call `acquire()` more often than `ttlMs` (e.g.
 * every ttl/3) to keep leading; a crashed leader's lease lapses after `ttlMs`.
 * Leases compare the clocks of the processes involved, so keep `ttlMs` well
 * above their skew. Work done as the leader should still be idempotent: a
 * paused process may act once after its lease lapsed. `db` may be an open
 * transaction (the lease then changes with it).
 *
 * ```ts
 * const lock = createLeaderLock(store.db, { name: "self-improvement", holder: owner, ttlMs: 30_000 });
 * setInterval(async () => { if (await lock.acquire()) await improveOnce(); }, 10_000);
 * ```
 */
export function createLeaderLock(db: AnyDatabase, options: LeaderLockOptions): LeaderLock {
  if (!(options.ttlMs > 0)) throw new Error(`createLeaderLock: ttlMs must be > 0 (got ${options.ttlMs})`);
  const now = options.now ?? Date.now;
  const iso = (milliseconds: number) => new Date(milliseconds).toISOString();
  async function take(time: number): Promise<Lease | undefined> {
    const result = await sql<Lease>`
      insert into deliberate_leases (name, holder, acquired_at, expires_at)
      values (${options.name}, ${options.holder}, ${iso(time)}, ${iso(time + options.ttlMs)})
      on conflict (name) do update
        set holder = excluded.holder,
            acquired_at = case when deliberate_leases.holder = excluded.holder then deliberate_leases.acquired_at else excluded.acquired_at end,
            expires_at = excluded.expires_at
        where deliberate_leases.holder = excluded.holder or deliberate_leases.expires_at <= ${iso(time)}
      returning holder, acquired_at, expires_at`.execute(db);
    return result.rows[0];
  }
  const lock: LeaderLock = {
    name: options.name,
    holder: options.holder,
    async acquire() {
      return (await take(now())) !== undefined;
    },
    async claim() {
      const time = now();
      // The upsert wrote nothing: another holder's unexpired lease stands, unless it was
      // released (or lapsed) between the two statements — then the next upsert takes it.
      for (let attempt = 1; ; attempt += 1) {
        const taken = await take(time);
        if (taken)
          return { held: true, holder: taken.holder, acquired_at: taken.acquired_at, expires_at: taken.expires_at };
        const standing = await readLease(db, options.name);
        if (standing && standing.expires_at > iso(time)) return { held: false, ...standing };
        if (attempt === maxClaimAttempts)
          throw new Error(
            `createLeaderLock: the lease '${options.name}' changed hands ${attempt} times during one claim`,
          );
      }
    },
    async release() {
      await sql`delete from deliberate_leases where name = ${options.name} and holder = ${options.holder}`.execute(db);
    },
    async current() {
      const lease = await readLease(db, options.name);
      return lease && lease.expires_at > iso(now()) ? lease : undefined;
    },
  };
  return lock;
}

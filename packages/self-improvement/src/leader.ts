import type { Clock } from "@deliberate/engine";
import { createLeaderLock, type Database, type LeaderLock } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { SelfImprovementConfig } from "./config.ts";

/**
 * The loop's leader lock: the store's lease `config.lease.name` in
 * `deliberate_leases` (`createLeaderLock`), held by `holder` for
 * `config.lease.durationMs` from the clock's time. One replica leads; another
 * takes over when the leader releases it (a graceful stop) or its lease lapses (a crash).
 */
export function loopLeaderLock(
  db: Kysely<Database>,
  config: Pick<SelfImprovementConfig, "lease">,
  holder: string,
  clock: Clock,
): LeaderLock {
  return createLeaderLock(db, {
    name: config.lease.name,
    holder,
    ttlMs: config.lease.durationMs,
    now: () => clock.now().getTime(),
  });
}

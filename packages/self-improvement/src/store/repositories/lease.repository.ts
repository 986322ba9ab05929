import { type Lease, readLease } from "@deliberate/store";
import type { DatabaseExecutor } from "../tables.ts";

/** The leader lease, read for reports. */
export function createLeaseRepository(db: DatabaseExecutor) {
  return {
    /** The leader lease as stored (the store's `deliberate_leases`, taken by `loopLeaderLock`), lapsed or not. */
    get(name: string): Promise<Lease | undefined> {
      return readLease(db, name);
    },
  };
}

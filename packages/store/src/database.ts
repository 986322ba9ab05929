import type { InvocationTable } from "./tables/invocation.table.ts";
import type { InvocationRollupTable } from "./tables/invocation-rollup.table.ts";
import type { InvocationLatencyBucketTable } from "./tables/invocation-latency-bucket.table.ts";
import type { SessionTable } from "./tables/session.table.ts";
import type { SuspendedCallTable } from "./tables/suspended-call.table.ts";
import type { ThoughtTable } from "./tables/thought.table.ts";
import type { ThoughtCountTable } from "./tables/thought-count.table.ts";

/**
 * The shared tables' Kysely schema (one file per table under tables/). Modules
 * type their own tables and reach them with `db.withTables<TheirTables>()`.
 */
export interface Database {
  sessions: SessionTable;
  thoughts: ThoughtTable;
  thought_counts: ThoughtCountTable;
  invocations: InvocationTable;
  invocation_rollups: InvocationRollupTable;
  invocation_latency_buckets: InvocationLatencyBucketTable;
  suspended_calls: SuspendedCallTable;
}

import type { Selectable } from "kysely";

/** How many calls of one (tool, operation) fell in one latency bucket (`latencyBucket`), and the smallest of them. */
export interface InvocationLatencyBucketTable {
  tool: string;
  /** '' for calls without an operation. */
  operation: string;
  bucket: number;
  calls: number | bigint | string;
  min_latency_ms: number;
}
export type InvocationLatencyBucketRow = Selectable<InvocationLatencyBucketTable>;

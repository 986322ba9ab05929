/** Buckets per doubling of (1 + latency): each spans about 1.1% of its latencies. */
const bucketsPerDoubling = 64;

/**
 * The latency histogram bucket of a call (`invocation_latency_buckets`).
 * Monotonic: a longer latency never falls in a lower bucket, so every call in
 * a bucket is at least the bucket's smallest latency and longer than every
 * call of the buckets below it.
 */
export function latencyBucket(latencyMs: number): number {
  return latencyMs > 0 ? Math.floor(bucketsPerDoubling * Math.log2(1 + latencyMs)) : 0;
}

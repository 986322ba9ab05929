import { CompletionNeeded } from "./host/completion-needed.ts";

/**
 * Maps `items` with at most `limit` calls in flight, keeping input order.
 * Independent model calls go through this so wall time follows the critical path.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  // Independent prompts of a host-executed call are collected, not stopped at the first.
  const suspensions: Array<{ index: number; suspension: CompletionNeeded }> = [];
  async function worker(): Promise<void> {
    while (next < items.length && !failed) {
      const index = next;
      next += 1;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        if (CompletionNeeded.isInstance(error)) {
          suspensions.push({ index, suspension: error });
          continue;
        }
        failed = true; // stop starting new work; the first error wins
        throw error;
      }
    }
  }
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, () => worker());
  await Promise.all(workers);
  if (suspensions.length > 0) {
    suspensions.sort((a, b) => a.index - b.index);
    throw CompletionNeeded.merge(suspensions.map((entry) => entry.suspension));
  }
  return results;
}

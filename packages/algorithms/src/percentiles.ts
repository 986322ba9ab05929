import { describeValue, IssueList } from "./invalid-input.ts";

/**
 * - `linear` (default): linear interpolation between closest ranks — rank
 *   `h = (n − 1)·p/100` (0-based) on the sorted values,
 *   `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`. Same as numpy's default,
 *   Excel `PERCENTILE.INC` and Hyndman–Fan type 7.
 * - `nearest_rank`: the smallest value with at least p% of values at or
 *   below it — the value at 1-based rank `max(1, ⌈p/100·n⌉)`; always an
 *   observed value.
 */
export type PercentileMethod = "linear" | "nearest_rank";

/** Input of {@link percentiles}. */
export interface PercentilesInput {
  values: readonly number[];
  /** Percentiles wanted, each in [0, 100], e.g. `[50, 95, 99]`. */
  ps: readonly number[];
  /** Default `linear`. */
  method?: PercentileMethod;
}

/**
 * The p-th percentile (p in [0, 100]) of `values` by linear interpolation
 * (see {@link PercentileMethod}), e.g. 50, 95, 99 for p50/p95/p99 latency;
 * p = 0 gives the minimum and p = 100 the maximum. O(n log n).
 *
 * Throws INVALID_INPUT naming the field for an empty list (`values`; there is
 * no percentile of nothing — report "no data" instead), a non-finite value
 * (`values.i`), or p outside [0, 100] (`p`).
 */
export function percentile(values: readonly number[], p: number): number {
  return compute(values, [p], "linear", () => "p")[0] as number;
}

/**
 * Several percentiles of the same values, sorting once; results in the order
 * of `ps`. Throws INVALID_INPUT naming `values`, `values.i`, `ps`, `ps.i` or
 * `method`, as {@link percentile} does.
 */
export function percentiles(input: PercentilesInput): number[] {
  return compute(input.values, input.ps, input.method ?? "linear", (index) => `ps.${index}`);
}

function compute(
  values: readonly number[],
  ps: readonly number[],
  method: PercentileMethod,
  pField: (index: number) => string,
): number[] {
  const issues = new IssueList();
  if (method !== "linear" && method !== "nearest_rank")
    issues.add("method", `must be "linear" or "nearest_rank", got ${describeValue(method)}`);
  if (issues.array(values, "values", 1)) values.forEach((value, index) => issues.finite(value, `values.${index}`));
  if (issues.array(ps, "ps", 1)) ps.forEach((p, index) => issues.inRange(p, pField(index), 0, 100));
  issues.throwIfAny("Pass at least one finite value and percentiles between 0 and 100.");
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  return ps.map((p) => {
    if (method === "nearest_rank") return sorted[Math.max(1, Math.ceil((p * n) / 100)) - 1] as number;
    const rank = ((n - 1) * p) / 100;
    const low = Math.floor(rank);
    const high = Math.min(n - 1, low + 1);
    const lowValue = sorted[low] as number;
    const fraction = rank - low;
    return fraction === 0 ? lowValue : lowValue + fraction * ((sorted[high] as number) - lowValue);
  });
}

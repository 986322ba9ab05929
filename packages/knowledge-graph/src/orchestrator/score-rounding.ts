/** A score or confidence to four decimals, as the trace shows them. */
export function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

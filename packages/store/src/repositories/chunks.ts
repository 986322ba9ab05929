/**
 * Splits `items` into slices of at most `size`, so one statement never exceeds
 * the database's bound-parameter limit (SQLite and Postgres alike).
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

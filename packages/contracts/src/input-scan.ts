/**
 * One walk over a caller's value that answers both questions validation asks
 * before the schema runs: does any text hold U+0000 (refused), and is there a
 * `null` anywhere (then `nullsAsAbsent` has work to do; most calls send none,
 * and skip it). Iterative, no allocation per value.
 */

/** A string somewhere (a value, an array item or an object key) holds U+0000. */
export const holdsNulCharacter = 1;
/** A `null` is somewhere (an array item or an object's value), or the walk stopped before it could tell. */
export const mayHoldNull = 2;

/**
 * Containers walked before the walk starts remembering which it has seen: a
 * request's input is a tree (JSON has no cycles), but an in-process caller may
 * pass an object that refers to itself, and the walk must still end.
 */
export const containersBeforeTracking = 1_000;

/**
 * `holdsNulCharacter | mayHoldNull` flags for `value`. The walk stops at the
 * first U+0000 (the call is refused then; the caller's errors come from the
 * slower walks that name fields), reporting `mayHoldNull` too so nothing is
 * skipped on that path.
 */
export function scanInput(value: unknown): number {
  if (typeof value === "string") return value.includes("\0") ? holdsNulCharacter | mayHoldNull : 0;
  if (value === null) return mayHoldNull;
  if (typeof value !== "object") return 0;
  let flags = 0;
  const stack: object[] = [value];
  let visited = 0;
  let seen: Set<object> | undefined;
  for (let current = stack.pop(); current !== undefined; current = stack.pop()) {
    visited += 1;
    if (visited > containersBeforeTracking) {
      seen ??= new Set();
      if (seen.has(current)) continue;
      seen.add(current);
    }
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) {
        const item: unknown = current[index];
        if (typeof item === "string") {
          if (item.includes("\0")) return holdsNulCharacter | mayHoldNull;
        } else if (item === null) flags = mayHoldNull;
        else if (typeof item === "object") stack.push(item);
      }
    } else {
      const record = current as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let index = 0; index < keys.length; index += 1) {
        const key = keys[index] as string;
        if (key.includes("\0")) return holdsNulCharacter | mayHoldNull;
        const item = record[key];
        if (typeof item === "string") {
          if (item.includes("\0")) return holdsNulCharacter | mayHoldNull;
        } else if (item === null) flags = mayHoldNull;
        else if (typeof item === "object") stack.push(item);
      }
    }
  }
  return flags;
}

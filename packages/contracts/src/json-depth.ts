/** How deeply JSON objects and arrays may nest in a request (both services refuse deeper input). */
export const maxJsonDepth = 64;

/** Where a value nests deeper than allowed: the path to the first container past the limit. */
export interface JsonDepthViolation {
  /** Keys and indexes from the root to the first container nested deeper than the limit. */
  path: Array<string | number>;
  limit: number;
}

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | undefined;
  parent: Frame | undefined;
}

function pathOf(frame: Frame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let current: Frame | undefined = frame; current?.key !== undefined; current = current.parent)
    path.push(current.key);
  return path.reverse();
}

/**
 * Checks how deeply a parsed JSON value nests, without recursion (so a value
 * nested a million levels deep cannot overflow the stack). Returns where it
 * first goes past `limit` levels of objects / arrays, or undefined when it
 * stays within. `JSON.parse` itself does not recurse, so parse first, then check,
 * before anything recursive (validation, storage, schema compilation) sees it.
 *
 * @example
 * jsonDepthViolation(JSON.parse('{"a":{"b":[1]}}'), 2) // { path: ["a", "b"], limit: 2 }
 */
export function jsonDepthViolation(value: unknown, limit = maxJsonDepth): JsonDepthViolation | undefined {
  const stack: Frame[] = [{ value, depth: 0, key: undefined, parent: undefined }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const current = frame.value;
    if (current === null || typeof current !== "object") continue;
    const depth = frame.depth + 1;
    if (depth > limit) return { path: pathOf(frame), limit };
    if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        const item: unknown = current[index];
        if (item !== null && typeof item === "object") stack.push({ value: item, depth, key: index, parent: frame });
      }
    } else {
      for (const [key, item] of Object.entries(current)) {
        if (item !== null && typeof item === "object") stack.push({ value: item, depth, key, parent: frame });
      }
    }
  }
  return undefined;
}

/**
 * A short dotted field name for a violation: its path cut to the first
 * `segments` keys (the path of a 5,000-deep value is itself 5,000 keys long).
 */
export function jsonDepthField(violation: JsonDepthViolation, segments = 8): string {
  const path = violation.path.slice(0, segments).map(String);
  return path.length === 0 ? "(body)" : path.join(".");
}

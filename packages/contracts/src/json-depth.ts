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
 * Whether `value` nests deeper than `limit` levels of objects / arrays. Runs on
 * every request's body: no allocation per container beyond two stacks, no
 * paths kept (those are worked out only for a body that is refused).
 */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== "object") return false;
  const containers: object[] = [value];
  const depths: number[] = [1];
  for (let current = containers.pop(); current !== undefined; current = containers.pop()) {
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) {
        const item: unknown = current[index];
        if (item !== null && typeof item === "object") {
          containers.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      const record = current as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let index = 0; index < keys.length; index += 1) {
        const item = record[keys[index] as string];
        if (item !== null && typeof item === "object") {
          containers.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/** Where `value` first nests past `limit`, with the path to it (the slower walk, for a value that does). */
function firstViolation(value: unknown, limit: number): JsonDepthViolation | undefined {
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
  return nestsDeeperThan(value, limit) ? firstViolation(value, limit) : undefined;
}

/**
 * A short dotted field name for a violation: its path cut to the first
 * `segments` keys (the path of a 5,000-deep value is itself 5,000 keys long).
 */
export function jsonDepthField(violation: JsonDepthViolation, segments = 8): string {
  const path = violation.path.slice(0, segments).map(String);
  return path.length === 0 ? "(body)" : path.join(".");
}

import type { FieldIssue } from "@deliberate/base";
import { containersBeforeTracking, holdsNulCharacter, scanInput } from "./input-scan.ts";

/** The message of a string holding U+0000. */
export const nulCharacterMessage =
  "contains the NUL character (U+0000), which is not accepted in text (Postgres cannot store it); remove it";

/**
 * Whether any string in `value` — a value, an array item or an object key, at
 * any depth — holds U+0000. One native search per string, no allocation per
 * value: cheap enough to run on every call's input. Iterative (no recursion).
 */
export function containsNulCharacter(value: unknown): boolean {
  return (scanInput(value) & holdsNulCharacter) !== 0;
}

interface Frame {
  value: object;
  key: string | number | undefined;
  parent: Frame | undefined;
}

function fieldOf(frame: Frame | undefined, key?: string | number): string {
  const path: string[] = key === undefined ? [] : [String(key)];
  for (let current = frame; current?.key !== undefined; current = current.parent) path.push(String(current.key));
  return path.length === 0 ? "(input)" : path.reverse().join(".");
}

/**
 * The fields of `value` whose strings hold U+0000, as INVALID_INPUT issues
 * (at most `limit`): a string names its own field (`content`,
 * `metadata.note`, `options.1.name`); a key names the object holding it and
 * quotes the key. Empty when there is none. Walks like `containsNulCharacter`
 * but keeps paths, so call it once that said yes (or on an error path).
 */
export function nulCharacterIssues(value: unknown, limit = 10): FieldIssue[] {
  if (typeof value === "string")
    return value.includes("\0") ? [{ field: "(input)", message: nulCharacterMessage }] : [];
  if (value === null || typeof value !== "object") return [];
  const issues: FieldIssue[] = [];
  const stack: Frame[] = [{ value, key: undefined, parent: undefined }];
  let visited = 0;
  let seen: Set<object> | undefined;
  for (let frame = stack.pop(); frame !== undefined && issues.length < limit; frame = stack.pop()) {
    const current = frame.value;
    visited += 1;
    if (visited > containersBeforeTracking) {
      seen ??= new Set();
      if (seen.has(current)) continue;
      seen.add(current);
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(current)
      ? current.map((item: unknown, index) => [index, item])
      : Object.entries(current);
    const children: Frame[] = [];
    for (const [key, item] of entries) {
      if (typeof key === "string" && key.includes("\0")) {
        issues.push({ field: fieldOf(frame), message: `the key ${JSON.stringify(key)} ${nulCharacterMessage}` });
      }
      if (typeof item === "string") {
        if (item.includes("\0")) issues.push({ field: fieldOf(frame, key), message: nulCharacterMessage });
      } else if (item !== null && typeof item === "object") children.push({ value: item, key, parent: frame });
    }
    // Depth first, in document order.
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index] as Frame);
  }
  return issues.slice(0, limit);
}

/**
 * Validation as it was before `scanInput` and the per-schema plans of
 * `nullsAsAbsent` (the composition of three walks: nulls removed, the schema
 * parsed, U+0000 looked for), kept verbatim for tests only: the property
 * tests check that `parseInput` accepts, parses and refuses exactly as this did.
 */
import type { z } from "zod";
import { DeliberateError } from "@deliberate/base";
import { nulCharacterIssues } from "./nul-characters.ts";
import { toFieldIssues } from "./validation.ts";

interface Definition {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  element?: unknown;
  options?: readonly unknown[];
  valueType?: unknown;
  left?: unknown;
  right?: unknown;
  getter?: () => unknown;
}

interface ZodLike {
  _zod?: { def?: Definition; optin?: string };
  safeParse?: (value: unknown) => { success: boolean };
}

const definitionOf = (schema: unknown): Definition | undefined => (schema as ZodLike | undefined)?._zod?.def;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The schema below wrappers that hold one inner schema of the same shape. */
function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 32; depth += 1) {
    const definition = definitionOf(current);
    switch (definition?.type) {
      case "optional":
      case "nullable":
      case "default":
      case "prefault":
      case "readonly":
      case "catch":
      case "nonoptional":
        current = definition.innerType;
        break;
      case "pipe":
        current = definition.in;
        break;
      case "lazy":
        current = definition.getter?.();
        break;
      default:
        return current;
    }
  }
  return current;
}

const accepts = (schema: unknown, value: unknown): boolean => (schema as ZodLike).safeParse?.(value).success === true;

/** Whether a field of an object may be left out and does not take `null` as a value of its own. */
function nullMeansAbsent(field: unknown): boolean {
  const optin = (field as ZodLike)._zod?.optin; // "defaulted" for a field with a default
  return (optin === "optional" || optin === "defaulted") && !accepts(field, null);
}

/** Sets an own property, also one named `__proto__` (JSON.parse makes it an own key; assigning it would set the prototype). */
function put(target: Record<string, unknown>, key: string, item: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value: item, enumerable: true, writable: true, configurable: true });
  else target[key] = item;
}

/** A new object with the first `count` of `keys` of `value` (what is unchanged before the first change). */
function copyOfFirst(value: Record<string, unknown>, keys: readonly string[], count: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (let index = 0; index < count; index += 1) put(copy, keys[index] as string, value[keys[index] as string]);
  return copy;
}

/** `value` with every `null` given for an optional field removed, as `schema` describes it. */
function referenceNullsAsAbsent(schema: unknown, value: unknown, depth = 0): unknown {
  if (value === null || value === undefined || typeof value !== "object" || depth > 64) return value;
  const inner = unwrap(schema);
  const definition = definitionOf(inner);
  switch (definition?.type) {
    case "object": {
      if (!isPlainObject(value) || !definition.shape) return value;
      // Nothing is allocated unless a null is dropped (or a nested value changes): this runs on every call.
      const keys = Object.keys(value);
      let result: Record<string, unknown> | undefined;
      for (let index = 0; index < keys.length; index += 1) {
        const key = keys[index] as string;
        const item = value[key];
        const field = definition.shape[key];
        let next = item;
        if (field !== undefined) {
          if (item === null && nullMeansAbsent(field)) {
            result ??= copyOfFirst(value, keys, index);
            continue;
          }
          next = referenceNullsAsAbsent(field, item, depth + 1);
          if (next !== item) result ??= copyOfFirst(value, keys, index);
        }
        if (result !== undefined) put(result, key, next);
      }
      return result ?? value;
    }
    case "array": {
      if (!Array.isArray(value)) return value;
      let items: unknown[] | undefined;
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        const next = referenceNullsAsAbsent(definition.element, item, depth + 1);
        if (next !== item) items ??= value.slice(0, index);
        if (items !== undefined) items.push(next);
      }
      return items ?? value;
    }
    case "record": {
      if (!isPlainObject(value)) return value;
      const keys = Object.keys(value);
      let result: Record<string, unknown> | undefined;
      for (let index = 0; index < keys.length; index += 1) {
        const key = keys[index] as string;
        const item = value[key];
        const next = referenceNullsAsAbsent(definition.valueType, item, depth + 1);
        if (next !== item) result ??= copyOfFirst(value, keys, index);
        if (result !== undefined) put(result, key, next);
      }
      return result ?? value;
    }
    case "intersection":
      return referenceNullsAsAbsent(
        definition.right,
        referenceNullsAsAbsent(definition.left, value, depth + 1),
        depth + 1,
      );
    case "union": {
      // The first branch the cleaned value fits; the value unchanged when none does (its own errors then name the fields).
      for (const option of definition.options ?? []) {
        const next = referenceNullsAsAbsent(option, value, depth + 1);
        if (next !== value && accepts(option, next)) return next;
      }
      return value;
    }
    default:
      return value;
  }
}

const containersBeforeTracking = 1_000;
function referenceContainsNulCharacter(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\0");
  if (value === null || typeof value !== "object") return false;
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
          if (item.includes("\0")) return true;
        } else if (item !== null && typeof item === "object") stack.push(item);
      }
    } else {
      const record = current as Record<string, unknown>;
      const keys = Object.keys(record);
      for (let index = 0; index < keys.length; index += 1) {
        const key = keys[index] as string;
        if (key.includes("\0")) return true;
        const item = record[key];
        if (typeof item === "string") {
          if (item.includes("\0")) return true;
        } else if (item !== null && typeof item === "object") stack.push(item);
      }
    }
  }
  return false;
}

/** `parseInput` before: the same messages, issues and parsed values, from three walks. */
export function referenceParseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(referenceNullsAsAbsent(schema, value));
  if (result.success && !referenceContainsNulCharacter(value)) return result.data;
  const issues = [...(result.success ? [] : toFieldIssues(result.error, schema)), ...nulCharacterIssues(value)];
  const summary = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
  throw new DeliberateError({
    code: "INVALID_INPUT",
    message: `Invalid input for ${what}: ${summary}`,
    issues,
    hint: "Fix the named fields and call again; nothing was written.",
  });
}

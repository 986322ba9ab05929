/**
 * `null` for an optional field means "not given": strict-mode clients (OpenAI's
 * strict function calling, the OpenAI Agents SDK) must send every property and
 * send `null` for the ones they leave out. Before validation, such nulls are
 * removed at any depth (nested objects, array items, union branches), so a
 * handler sees the field absent (and its default, if it has one). A field
 * that accepts `null` itself keeps it.
 */

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

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

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

/** `value` with every `null` given for an optional field removed, as `schema` describes it. */
export function nullsAsAbsent(schema: unknown, value: unknown, depth = 0): unknown {
  if (value === null || value === undefined || typeof value !== "object" || depth > 64) return value;
  const inner = unwrap(schema);
  const definition = definitionOf(inner);
  switch (definition?.type) {
    case "object": {
      if (!isPlainObject(value) || !definition.shape) return value;
      let changed = false;
      const result: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const field = definition.shape[key];
        if (field === undefined) {
          result[key] = item;
          continue;
        }
        if (item === null && nullMeansAbsent(field)) {
          changed = true;
          continue;
        }
        const next = nullsAsAbsent(field, item, depth + 1);
        changed ||= next !== item;
        result[key] = next;
      }
      return changed ? result : value;
    }
    case "array": {
      if (!Array.isArray(value)) return value;
      const items = value.map((item) => nullsAsAbsent(definition.element, item, depth + 1));
      return items.some((item, index) => item !== value[index]) ? items : value;
    }
    case "record": {
      if (!isPlainObject(value)) return value;
      const entries = Object.entries(value).map(([key, item]) => [key, nullsAsAbsent(definition.valueType, item, depth + 1)] as const);
      return entries.some(([key, item]) => item !== value[key]) ? Object.fromEntries(entries) : value;
    }
    case "intersection":
      return nullsAsAbsent(definition.right, nullsAsAbsent(definition.left, value, depth + 1), depth + 1);
    case "union": {
      // The first branch the cleaned value fits; the value unchanged when none does (its own errors then name the fields).
      for (const option of definition.options ?? []) {
        const next = nullsAsAbsent(option, value, depth + 1);
        if (next !== value && accepts(option, next)) return next;
      }
      return value;
    }
    default:
      return value;
  }
}

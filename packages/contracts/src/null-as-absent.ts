/**
 * `null` for an optional field means "not given": strict-mode clients (OpenAI's
 * strict function calling, the OpenAI Agents SDK) must send every property and
 * send `null` for the ones they leave out. Before validation, such nulls are
 * removed at any depth (nested objects, array items, union branches), so a
 * handler sees the field absent (and its default, if it has one). A field
 * that accepts `null` itself keeps it.
 *
 * What to do at a schema (which wrappers to look through, which fields take
 * `null` as "absent") is worked out once per schema and kept (`planOf`); a
 * call only walks its value.
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

/** A field of an object schema; whether `null` means "absent" there is asked once, when a null first comes. */
interface Field {
  readonly schema: unknown;
  nullMeansAbsent: boolean | undefined;
}

/** What `nullsAsAbsent` does at one schema, below its wrappers. */
type Plan =
  | { readonly kind: "object"; readonly fields: ReadonlyMap<string, Field> }
  | { readonly kind: "array"; readonly element: unknown }
  | { readonly kind: "record"; readonly valueType: unknown }
  | { readonly kind: "intersection"; readonly left: unknown; readonly right: unknown }
  | { readonly kind: "union"; readonly options: readonly unknown[] }
  | { readonly kind: "none" };

const nothingToDo: Plan = { kind: "none" };

// Keyed by schema object: zod schemas never change once built, and a schema no longer used takes its plan with it.
const plans = new WeakMap<object, Plan>();

/** Whether a field of an object may be left out and does not take `null` as a value of its own. */
function nullMeansAbsent(field: Field): boolean {
  if (field.nullMeansAbsent === undefined) {
    const optin = (field.schema as ZodLike | undefined)?._zod?.optin; // "defaulted" for a field with a default
    field.nullMeansAbsent = (optin === "optional" || optin === "defaulted") && !accepts(field.schema, null);
  }
  return field.nullMeansAbsent;
}

function buildPlan(schema: unknown): Plan {
  const definition = definitionOf(unwrap(schema));
  switch (definition?.type) {
    case "object": {
      if (!definition.shape) return nothingToDo;
      // Children are planned when first walked, so a recursive schema (getters, z.lazy) plans in finite time.
      const fields = new Map<string, Field>();
      for (const key of Object.keys(definition.shape))
        fields.set(key, { schema: definition.shape[key], nullMeansAbsent: undefined });
      return { kind: "object", fields };
    }
    case "array":
      return { kind: "array", element: definition.element };
    case "record":
      return { kind: "record", valueType: definition.valueType };
    case "intersection":
      return { kind: "intersection", left: definition.left, right: definition.right };
    case "union":
      return { kind: "union", options: definition.options ?? [] };
    default:
      return nothingToDo;
  }
}

/** The plan of `schema`, built on first use and kept. */
function planOf(schema: unknown): Plan {
  if (typeof schema !== "object" || schema === null) return nothingToDo;
  let plan = plans.get(schema);
  if (plan === undefined) {
    plan = buildPlan(schema);
    plans.set(schema, plan);
  }
  return plan;
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

function objectWithoutNulls(fields: ReadonlyMap<string, Field>, value: Record<string, unknown>, depth: number) {
  // Nothing is allocated unless a null is dropped (or a nested value changes).
  const keys = Object.keys(value);
  let result: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const item = value[key];
    const field = fields.get(key);
    let next = item;
    if (field !== undefined) {
      if (item === null && nullMeansAbsent(field)) {
        result ??= copyOfFirst(value, keys, index);
        continue;
      }
      next = nullsAsAbsent(field.schema, item, depth + 1);
      if (next !== item) result ??= copyOfFirst(value, keys, index);
    }
    if (result !== undefined) put(result, key, next);
  }
  return result ?? value;
}

function recordWithoutNulls(valueType: unknown, value: Record<string, unknown>, depth: number) {
  const keys = Object.keys(value);
  let result: Record<string, unknown> | undefined;
  for (let index = 0; index < keys.length; index += 1) {
    const key = keys[index] as string;
    const item = value[key];
    const next = nullsAsAbsent(valueType, item, depth + 1);
    if (next !== item) result ??= copyOfFirst(value, keys, index);
    if (result !== undefined) put(result, key, next);
  }
  return result ?? value;
}

function arrayWithoutNulls(element: unknown, value: unknown[], depth: number): unknown[] {
  let items: unknown[] | undefined;
  for (let index = 0; index < value.length; index += 1) {
    const item: unknown = value[index];
    const next = nullsAsAbsent(element, item, depth + 1);
    if (next !== item) items ??= value.slice(0, index);
    if (items !== undefined) items.push(next);
  }
  return items ?? value;
}

/**
 * `value` with every `null` given for an optional field removed, as `schema` describes it.
 * `value` itself when there is none (nothing is copied).
 */
export function nullsAsAbsent(schema: unknown, value: unknown, depth = 0): unknown {
  if (value === null || value === undefined || typeof value !== "object" || depth > 64) return value;
  const plan = planOf(schema);
  switch (plan.kind) {
    case "object":
      return isPlainObject(value) ? objectWithoutNulls(plan.fields, value, depth) : value;
    case "array":
      return Array.isArray(value) ? arrayWithoutNulls(plan.element, value, depth) : value;
    case "record":
      return isPlainObject(value) ? recordWithoutNulls(plan.valueType, value, depth) : value;
    case "intersection":
      return nullsAsAbsent(plan.right, nullsAsAbsent(plan.left, value, depth + 1), depth + 1);
    case "union": {
      // The first branch the cleaned value fits; the value unchanged when none does (its own errors then name the fields).
      for (const option of plan.options) {
        const next = nullsAsAbsent(option, value, depth + 1);
        if (next !== value && accepts(option, next)) return next;
      }
      return value;
    }
    default:
      return value;
  }
}

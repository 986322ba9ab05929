import { z } from "zod";

/**
 * The strings accepted in place of a number: a plain decimal number exactly as
 * JSON writes one (`3`, `-0.5`, `1e-7`, `2.5E+3`). No surrounding spaces, no
 * sign `+`, no hexadecimal / binary / octal prefixes, no `Infinity`, no
 * leading zeros, no bare `.5` or `3.`: a typo still fails.
 */
export const decimalNumberPattern = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

// MCP clients (and the models driving them) often send numbers and booleans as
// strings; accept "3" and "true" but nothing looser, so typos still fail.
function numberFromString(value: unknown): unknown {
  if (typeof value !== "string" || !decimalNumberPattern.test(value)) return value;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : value;
}

function booleanFromString(value: unknown): unknown {
  if (value === "true") return true;
  if (value === "false") return false;
  return value;
}

/** A number that also accepts its plain decimal string form (`"3"`, `"-0.25"`, `"1e3"`). */
export function looseNumber<S extends z.ZodNumber>(schema: S) {
  return z.preprocess(numberFromString, schema);
}

/** An integer that also accepts its plain decimal string form. */
export function looseInteger(bounds: { min?: number; max?: number } = {}) {
  let schema = z.number().int();
  if (bounds.min !== undefined) schema = schema.min(bounds.min);
  if (bounds.max !== undefined) schema = schema.max(bounds.max);
  return z.preprocess(numberFromString, schema);
}

/** A boolean that also accepts exactly `"true"` / `"false"` (lower case, no spaces). */
export function looseBoolean() {
  return z.preprocess(booleanFromString, z.boolean());
}

/** A probability-like number in [0, 1]. */
export function unitInterval() {
  return looseNumber(z.number().min(0).max(1));
}

/** A non-empty trimmed string with a clear message. */
export function nonEmptyText(what = "text") {
  return z.string().trim().min(1, `${what} must not be empty`);
}

/**
 * A `z.toJSONSchema` override that keeps the `default` of fields built with the
 * loose helpers above. zod drops defaults of transforming schemas when it
 * converts the input side (`io: "input"`), and the loose helpers transform
 * (a string becomes a number), so without this every such field would be
 * published without its default. Pass it as `override` wherever a schema is
 * converted for publication.
 *
 * @example
 * z.toJSONSchema(schema, { io: "input", override: keepCoercedDefaults });
 */
export function keepCoercedDefaults(context: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const definition = (context.zodSchema as { _zod?: { def?: { type?: string; defaultValue?: unknown } } })._zod?.def;
  if (definition?.type !== "default" || "default" in context.jsonSchema) return;
  const serialized = JSON.stringify(definition.defaultValue);
  if (serialized !== undefined) context.jsonSchema["default"] = JSON.parse(serialized) as unknown;
}

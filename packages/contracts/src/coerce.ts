import { z } from "zod";

// MCP clients (and the models driving them) often send numbers and booleans as
// strings; accept "3" and "true" but nothing looser, so typos still fail.
function numberFromString(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const trimmed = value.trim();
  if (trimmed === "") return value;
  const parsed = Number(trimmed);
  return Number.isFinite(parsed) ? parsed : value;
}

function booleanFromString(value: unknown): unknown {
  if (typeof value !== "string") return value;
  const lowered = value.trim().toLowerCase();
  if (lowered === "true") return true;
  if (lowered === "false") return false;
  return value;
}

/** A number that also accepts its decimal string form. */
export function looseNumber<S extends z.ZodNumber>(schema: S) {
  return z.preprocess(numberFromString, schema);
}

/** An integer that also accepts its decimal string form. */
export function looseInteger(bounds: { min?: number; max?: number } = {}) {
  let schema = z.number().int();
  if (bounds.min !== undefined) schema = schema.min(bounds.min);
  if (bounds.max !== undefined) schema = schema.max(bounds.max);
  return z.preprocess(numberFromString, schema);
}

/** A boolean that also accepts "true" / "false". */
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

import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";

/**
 * Input schemas that accept more than they publish. A field that used to be a
 * free-form record stays accepted in that form (callers written against it keep
 * working), but its published JSON Schema shows only the strict-client form
 * (an array of pairs, JSON text): OpenAI's strict mode (and the Agents SDK's
 * conversion of MCP tools) cannot express an object with open keys.
 */
const publishedForms = new WeakMap<object, z.ZodType>();

// Keyed by zod's definition object, which `.describe()` and `.meta()` clones share.
const definitionOf = (schema: unknown): object | undefined =>
  (schema as { _zod?: { def?: object } } | undefined)?._zod?.def;

/** Marks `accepted` (and its described copies) to be published as `published`. */
export function publishAs<S extends z.ZodType>(accepted: S, published: z.ZodType): S {
  publishedForms.set(definitionOf(accepted) as object, published);
  return accepted;
}

/** The form `schema` is published as, when it has one of its own. */
export function publishedFormOf(schema: unknown): z.ZodType | undefined {
  const definition = definitionOf(schema);
  return definition ? publishedForms.get(definition) : undefined;
}

/** A JSON value without nesting: what a pair's value holds when the record's values were free-form. */
export const jsonScalarSchema = lazySchema(() => z.union([z.string(), z.number(), z.boolean(), z.null()]));

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A record by name, accepted as an array of `{ [keyName]: key, value }` pairs
 * (the published, strict-client form; each key once) or as the plain object
 * `{ key: value }` it always was. Handlers get the object either way.
 * `publishedValue` is the value schema shown to clients (default `value`).
 */
export function recordInput<V extends z.ZodType>(
  value: V,
  options: { keyName: string; what: string; publishedValue?: z.ZodType; key?: z.ZodString },
) {
  const key = options.key ?? z.string();
  const pairSchema = (valueSchema: z.ZodType) => z.strictObject({ [options.keyName]: key, value: valueSchema });
  const pair = pairSchema(value);
  const shape = `a list of { ${options.keyName}, value } pairs`;
  const accepted = z.preprocess(
    (given, context) => {
      if (isPlainObject(given)) return given;
      if (!Array.isArray(given)) {
        context.addIssue({ code: "custom", message: `give ${shape}` });
        return z.NEVER;
      }
      // Each pair is checked where it is (`inputs.1.value`); the object then goes through the record's own check.
      const entries = new Map<string, unknown>();
      given.forEach((item, index) => {
        const checked = pair.safeParse(item);
        if (!checked.success) {
          for (const issue of checked.error.issues)
            context.addIssue({
              code: "custom",
              path: [index, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))],
              message: issue.message,
            });
          return;
        }
        const name = (item as Record<string, string>)[options.keyName] as string;
        if (entries.has(name))
          context.addIssue({
            code: "custom",
            path: [index, options.keyName],
            message: `${options.what} '${name}' is given twice; give each ${options.keyName} once`,
          });
        entries.set(name, (item as { value: unknown }).value);
      });
      return Object.fromEntries(entries);
    },
    z.record(key, value),
  ) as unknown as z.ZodType<Record<string, z.output<V>>, Array<Record<string, unknown>> | Record<string, z.input<V>>>;
  return publishAs(accepted, z.array(pairSchema(options.publishedValue ?? value)));
}

/**
 * A free-form JSON object (a JSON Schema the caller writes, say), accepted as
 * JSON text (the published, strict-client form) or as the object itself.
 */
export function jsonObjectInput(what: string) {
  const accepted = z.preprocess(
    (given, context) => {
      if (typeof given !== "string") return given;
      try {
        const parsed: unknown = JSON.parse(given);
        if (isPlainObject(parsed)) return parsed;
      } catch {
        // reported below
      }
      context.addIssue({
        code: "custom",
        message: `${what} must be a JSON object written as JSON text, e.g. "{\\"type\\":\\"object\\"}"`,
      });
      return z.NEVER;
    },
    z.record(z.string(), z.unknown()),
  ) as unknown as z.ZodType<Record<string, unknown>, string | Record<string, unknown>>;
  return publishAs(accepted, z.string().describe(`${what}, as JSON text`));
}

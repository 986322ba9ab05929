import { z } from "zod";

const cache = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * The JSON Schema of a mode's answer as the model (or the calling agent) sees
 * it: the schema's input side (what may be sent, before any transform), with
 * no `$schema` dialect. The same conversion the providers use for their
 * tool / json_schema definitions, so a host-executed prompt publishes exactly
 * what a server-side model is given.
 */
export function answerJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const cached = cache.get(schema);
  if (cached) return cached;
  const { $schema: _dialect, ...converted } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  cache.set(schema, converted);
  return converted;
}

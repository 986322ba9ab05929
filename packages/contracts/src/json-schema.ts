import { z } from "zod";
import { keepCoercedDefaults } from "./coerce.ts";
import { publishedFormOf } from "./published-form.ts";
import { strictClientInputSchema } from "./strict-client-schema.ts";
import type { ToolDefinition } from "./tool-definition.ts";

/** A JSON Schema object as surfaces publish it. */
export type JsonSchema = Record<string, unknown>;

type OverrideContext = { zodSchema: unknown; jsonSchema: Record<string, unknown> };

/**
 * Publishes a field marked with `publishAs` in its published form (an old
 * record form stays accepted, unpublished), and keeps coerced defaults.
 */
function publicationOverride(context: OverrideContext): void {
  const definition = (context.zodSchema as { _zod?: { def?: { type?: string; innerType?: unknown } } })._zod?.def;
  // The default of a republished field is in its accepted form (`{}`), not the published one: leave it out.
  if (definition?.type === "default" && publishedFormOf(definition.innerType)) {
    delete context.jsonSchema["default"];
    return;
  }
  keepCoercedDefaults(context);
  const published = publishedFormOf(context.zodSchema);
  if (!published) return;
  const { $schema: _dialect, ...json } = z.toJSONSchema(published, {
    io: "input",
    target: "draft-2020-12",
    unrepresentable: "any",
    override: publicationOverride,
  }) as JsonSchema;
  const description = context.jsonSchema["description"];
  for (const key of Object.keys(context.jsonSchema)) delete context.jsonSchema[key];
  Object.assign(context.jsonSchema, json, description !== undefined ? { description } : {});
}

/**
 * The one conversion of a zod schema to JSON Schema, for every surface (MCP
 * tools/list, REST, OpenAPI, host-executed prompts): draft 2020-12, the
 * dialect of the MCP SDK and OpenAPI 3.1. `$schema` is left out so clients
 * that default to another draft do not trip over the dialect URI. `io: "input"`
 * is what a caller may send (defaulted fields optional), `"output"` what is returned.
 * Fields that also accept strings ("3") keep their defaults (`keepCoercedDefaults`).
 * Inputs are published strict-client ready (`strictClientInputSchema`): closed
 * objects, optional fields that accept `null`, records as arrays of pairs.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
    override: publicationOverride,
  }) as JsonSchema;
  return io === "input" ? strictClientInputSchema(json) : json;
}

/** The JSON Schemas a tool publishes. */
export interface PublishedSchemas {
  input: JsonSchema;
  output: JsonSchema;
}

const cache = new WeakMap<ToolDefinition, PublishedSchemas>();

/**
 * A tool's published schemas, converted once per definition. MCP wants an
 * object at the root; a union of objects ("result or needs_completion") is one.
 */
export function publishedSchemas(definition: ToolDefinition): PublishedSchemas {
  let schemas = cache.get(definition);
  if (!schemas) {
    const objectRoot = (json: JsonSchema): JsonSchema =>
      json["type"] === undefined ? { type: "object", ...json } : json;
    schemas = {
      input: objectRoot(toJsonSchema(definition.inputSchema, "input")),
      output: objectRoot(toJsonSchema(definition.outputSchema, "output")),
    };
    cache.set(definition, schemas);
  }
  return schemas;
}

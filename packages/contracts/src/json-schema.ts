import { z } from "zod";
import { keepCoercedDefaults } from "./coerce.ts";
import type { ToolDefinition } from "./tool-definition.ts";

/** A JSON Schema object as surfaces publish it. */
export type JsonSchema = Record<string, unknown>;

/**
 * The one conversion of a zod schema to JSON Schema, for every surface (MCP
 * tools/list, REST, OpenAPI, host-executed prompts): draft 2020-12, the
 * dialect of the MCP SDK and OpenAPI 3.1. `$schema` is left out so clients
 * that default to another draft do not trip over the dialect URI. `io: "input"`
 * is what a caller may send (defaulted fields optional), `"output"` what is returned.
 * Fields that also accept strings ("3") keep their defaults (`keepCoercedDefaults`).
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any", override: keepCoercedDefaults }) as JsonSchema;
  return json;
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
    const objectRoot = (json: JsonSchema): JsonSchema => (json["type"] === undefined ? { type: "object", ...json } : json);
    schemas = { input: objectRoot(toJsonSchema(definition.inputSchema, "input")), output: objectRoot(toJsonSchema(definition.outputSchema, "output")) };
    cache.set(definition, schemas);
  }
  return schemas;
}

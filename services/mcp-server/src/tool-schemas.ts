import { keepCoercedDefaults, type ToolDefinition } from "@deliberate/contracts";
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { z } from "zod";

/** JSON Schema objects as MCP publishes them. */
export type JsonSchema = Record<string, unknown>;

/** The JSON Schemas a tool publishes in `tools/list`. */
export interface PublishedSchemas {
  input: JsonSchema;
  output: JsonSchema;
}

const cache = new WeakMap<ToolDefinition, PublishedSchemas>();

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  // draft 2020-12 is what the MCP SDK itself targets; $schema is left out so
  // clients that default to another draft do not trip over the dialect URI.
  // keepCoercedDefaults: fields that also accept strings ("3") keep their published defaults.
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any", override: keepCoercedDefaults }) as JsonSchema;
  // MCP wants an object at the root; a union of objects ("result or needs_completion") is one.
  return json["type"] === undefined ? { type: "object", ...json } : json;
}

/**
 * Derives a tool's published schemas from its zod schemas, once per definition:
 * the input as the caller may send it (`io: "input"`: defaults optional), the
 * output as the engine returns it.
 */
export function publishedSchemas(definition: ToolDefinition): PublishedSchemas {
  let schemas = cache.get(definition);
  if (!schemas) {
    schemas = { input: toJsonSchema(definition.inputSchema, "input"), output: toJsonSchema(definition.outputSchema, "output") };
    cache.set(definition, schemas);
  }
  return schemas;
}

/**
 * Publishes a JSON Schema to the SDK without letting the SDK validate against
 * it. Arguments go to the engine untouched, so its validator (which names
 * each field, says how to fix it, and accepts "3" / "true" for numbers and
 * booleans) is the only one a caller ever sees. Outputs are already checked
 * against the tool's output schema by the engine.
 */
export function publishOnly(schema: JsonSchema): StandardSchemaWithJSON {
  return {
    "~standard": {
      version: 1,
      vendor: "deliberate",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

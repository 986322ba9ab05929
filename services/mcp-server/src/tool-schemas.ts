import type { JsonSchema } from "@deliberate/contracts";
import type { StandardSchemaWithJSON } from "@modelcontextprotocol/server";

/**
 * Publishes a JSON Schema to the SDK without letting the SDK validate against
 * it. Arguments go to the engine untouched, so its validator (which names
 * each field, says how to fix it, and accepts "3" / "true" for numbers and
 * booleans) is the only one a caller ever sees. Outputs are already checked
 * against the tool's output schema by the engine. `schema` is asked for only
 * when the SDK needs it (tools/list, a call's output), so start-up converts no
 * zod schema to JSON Schema.
 */
export function publishOnly(schema: () => JsonSchema): StandardSchemaWithJSON {
  return {
    "~standard": {
      version: 1,
      vendor: "deliberate",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => schema(), output: () => schema() },
    },
  };
}

import { answerJsonSchema } from "@deliberate/engine";
import { measureSchemaAcceptance } from "@deliberate/engine/testing";
import { describe, expect, it } from "vitest";
import { createIntentMode } from "./intent-mode.ts";
import { defaultOfferedTools } from "@deliberate/contracts";
import { compileOfferedTools } from "./offered-tools.ts";

const tools = compileOfferedTools([
  ...defaultOfferedTools,
  {
    name: "fs.read",
    description: "Reads a file",
    input_schema: {
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, pattern: "^[a-z/._-]+$" },
        lines: { type: "integer", minimum: 1, maximum: 500 },
        encoding: { enum: ["utf8", "latin1"] },
      },
      required: ["path"],
      additionalProperties: false,
    },
  },
  {
    name: "shell.run",
    description: "Runs a command",
    input_schema: {
      type: "object",
      properties: { argv: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 4 } },
      required: ["argv"],
    },
  },
  { name: "notify", description: "No schema: any object" },
]);

describe("the agent-intent answer schema", () => {
  it("publishes one anyOf branch per offered tool with that tool's argument schema, plus finish", () => {
    const schema = answerJsonSchema(createIntentMode(tools).output) as {
      anyOf: Array<{ properties: { tool_name: { const: string }; tool_args: Record<string, unknown> } }>;
    };
    expect(schema.anyOf.map((branch) => branch.properties.tool_name.const)).toEqual([
      "context.fts_search",
      "fs.read",
      "shell.run",
      "notify",
      "finish",
    ]);
    expect(schema.anyOf[1]?.properties.tool_args).toMatchObject({
      required: ["path"],
      additionalProperties: false,
      properties: { lines: { minimum: 1, maximum: 500 } },
    });
    expect(schema.anyOf[2]?.properties.tool_args).toMatchObject({ properties: { argv: { minItems: 1, maxItems: 4 } } });
  });

  it("accepts every answer valid against it (random answers from the published schema)", async () => {
    const result = await measureSchemaAcceptance(createIntentMode(tools).output, { samples: 300, seed: 3 });
    if (process.env["PRINT_SCHEMA_ACCEPTANCE"])
      console.info(`agent_next_action: ${result.accepted}/${result.generated} (${(result.rate * 100).toFixed(1)}%)`);
    expect(result.rejected.slice(0, 3)).toEqual([]);
    expect(result.rate).toBe(1);
  });
});

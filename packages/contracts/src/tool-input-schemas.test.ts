import { describe, expect, it } from "vitest";
import { allToolDefinitions } from "./catalogue.ts";
import { publishedSchemas } from "./json-schema.ts";

// Hosts hand MCP tool input schemas to model APIs as tool definitions, and the Anthropic
// Messages API refuses any whose root has anyOf, oneOf or allOf ("input_schema does not
// support oneOf, allOf, or anyOf at the top level"); OpenAI wants an object root too.
describe("every published tool input schema", () => {
  it("is an object at its root with no anyOf, oneOf or allOf there", () => {
    expect(allToolDefinitions.length).toBeGreaterThan(20);
    const offending = allToolDefinitions.flatMap((definition) => {
      const input = publishedSchemas(definition).input;
      const problems = [
        ...(input["type"] === "object" ? [] : [`type is ${JSON.stringify(input["type"])}`]),
        ...["anyOf", "oneOf", "allOf"].filter((keyword) => keyword in input),
      ];
      return problems.map((problem) => `${definition.name}: ${problem}`);
    });
    expect(offending).toEqual([]);
  });
});

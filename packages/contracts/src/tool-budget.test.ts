import { describe, expect, it } from "vitest";
import { allToolDefinitions } from "./catalogue.ts";
import { publishedSchemas } from "./json-schema.ts";

/**
 * What a model reads of each tool in every conversation that lists it: its
 * name, description and input schema. The budgets keep any one tool from
 * taking a large share of a host's context (MCP servers' toolsets cap the
 * total; see the mcp-server README for the measured sizes).
 */
const descriptionBudget = 800;
const modelFacingBudget = 4_500;
/**
 * Larger budgets, each with its reason. `reasoning_execute_task` carries the spec's whole executeTask request
 * (context data with facts and rules as data, tool results, user input); it is in the knowledge-graph toolset,
 * outside the default one.
 */
const largerBudgets: Record<string, number> = { reasoning_execute_task: 7_500 };

describe("tool descriptions and schemas fit their context budget", () => {
  for (const definition of allToolDefinitions) {
    const budget = largerBudgets[definition.name] ?? modelFacingBudget;
    it(`${definition.name}: description at most ${descriptionBudget} characters, name + description + input schema at most ${budget}`, () => {
      expect(definition.description.length).toBeLessThanOrEqual(descriptionBudget);
      const size = JSON.stringify({
        name: definition.name,
        description: definition.description,
        inputSchema: publishedSchemas(definition).input,
      }).length;
      expect(size).toBeLessThanOrEqual(budget);
    });
  }
});

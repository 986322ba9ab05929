import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allToolDefinitions } from "./catalogue.ts";
import { publishedSchemas, toJsonSchema } from "./json-schema.ts";
import { jsonObjectInput, jsonScalarSchema, recordInput } from "./published-form.ts";
import { strictClientInputSchema } from "./strict-client-schema.ts";
import { parseInput } from "./validation.ts";

const tool = (name: string) => {
  const definition = allToolDefinitions.find((candidate) => candidate.name === name);
  if (!definition) throw new Error(`no tool ${name}`);
  return definition;
};

describe("recordInput", () => {
  const schema = z.object({ inputs: recordInput(z.string(), { keyName: "name", what: "input" }).default({}) });

  it("takes pairs (the published form) and the object form, and gives the handler the object", () => {
    expect(parseInput(schema, { inputs: [{ name: "problem", value: "slow build" }] }, "t")).toEqual({
      inputs: { problem: "slow build" },
    });
    expect(parseInput(schema, { inputs: { problem: "slow build" } }, "t")).toEqual({
      inputs: { problem: "slow build" },
    });
    expect(parseInput(schema, {}, "t")).toEqual({ inputs: {} });
  });

  it("refuses a name given twice, naming the pair", () => {
    expect(() =>
      parseInput(
        schema,
        {
          inputs: [
            { name: "a", value: "1" },
            { name: "a", value: "2" },
          ],
        },
        "t",
      ),
    ).toThrow(/inputs\.1\.name: input 'a' is given twice/);
  });

  it("publishes only the pairs, closed, with no object default", () => {
    expect(toJsonSchema(schema, "input")["properties"]).toEqual({
      inputs: {
        type: ["array", "null"],
        items: {
          type: "object",
          properties: { name: { type: "string" }, value: { type: "string" } },
          required: ["name", "value"],
          additionalProperties: false,
        },
      },
    });
  });
});

describe("jsonObjectInput", () => {
  const schema = z.object({ input_schema: jsonObjectInput("input_schema").optional() });

  it("takes JSON text (the published form) or the object, and gives the handler the object", () => {
    expect(parseInput(schema, { input_schema: '{"type":"object"}' }, "t")).toEqual({
      input_schema: { type: "object" },
    });
    expect(parseInput(schema, { input_schema: { type: "object" } }, "t")).toEqual({ input_schema: { type: "object" } });
  });

  it("refuses text that is not a JSON object, naming the field and the fix", () => {
    for (const text of ["{not json", "[1,2]", "3", '"x"'])
      expect(() => parseInput(schema, { input_schema: text }, "t"), text).toThrow(
        /input_schema: input_schema must be a JSON object written as JSON text/,
      );
  });

  it("is published as a string", () => {
    expect(toJsonSchema(schema, "input")["properties"]).toEqual({
      input_schema: { type: ["string", "null"], description: "input_schema, as JSON text" },
    });
  });
});

describe("strictClientInputSchema", () => {
  it("closes every object, empty ones too, and makes each optional property take null", () => {
    const json = strictClientInputSchema({
      type: "object",
      properties: {
        kind: { type: "string", enum: ["a", "b"] },
        fixed: { const: "x" },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        shared: { $ref: "#/$defs/Shared", description: "d" },
        free: {},
        nested: { type: "object", properties: { inner: { type: "boolean" } }, required: ["inner"] },
        empty: { type: "object" },
      },
      required: ["kind"],
      $defs: { Shared: { type: "object", properties: { a: { type: "string" } } } },
    });
    expect(json).toEqual({
      type: "object",
      additionalProperties: false,
      properties: {
        kind: { type: "string", enum: ["a", "b"] },
        fixed: { enum: ["x", null] },
        either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        shared: { anyOf: [{ $ref: "#/$defs/Shared" }, { type: "null" }], description: "d" },
        free: {},
        nested: {
          type: ["object", "null"],
          properties: { inner: { type: "boolean" } },
          required: ["inner"],
          additionalProperties: false,
        },
        empty: { type: ["object", "null"], properties: {}, additionalProperties: false },
      },
      required: ["kind"],
      $defs: {
        Shared: { type: "object", properties: { a: { type: ["string", "null"] } }, additionalProperties: false },
      },
    });
  });

  it("leaves output schemas as they were", () => {
    const schema = z.object({ note: z.string().optional() });
    expect(toJsonSchema(schema, "output")["properties"]).toEqual({ note: { type: "string" } });
  });
});

describe("the catalogue's republished fields", () => {
  it("publishes no object with open keys in any tool's input", () => {
    const open: string[] = [];
    const visit = (node: unknown, path: string) => {
      if (Array.isArray(node)) return node.forEach((item, index) => visit(item, `${path}[${index}]`));
      if (typeof node !== "object" || node === null) return;
      const record = node as Record<string, unknown>;
      const type = record["type"];
      if (
        (type === "object" || (Array.isArray(type) && type.includes("object"))) &&
        record["additionalProperties"] !== false
      )
        open.push(path);
      for (const [key, value] of Object.entries(record))
        if (!["default", "enum", "const", "examples"].includes(key)) visit(value, `${path}.${key}`);
    };
    for (const definition of allToolDefinitions) visit(publishedSchemas(definition).input, definition.name);
    expect(open).toEqual([]);
  });

  it("still takes the old object forms: startWorkflow inputs, counterfactual observed, agent intent persona and tools' input_schema", () => {
    expect(
      parseInput(tool("startWorkflow").inputSchema, { workflow: "w", inputs: { problem: "p" } }, "t"),
    ).toMatchObject({ inputs: { problem: "p" } });
    expect(
      parseInput(tool("startWorkflow").inputSchema, { workflow: "w", inputs: [{ name: "problem", value: "p" }] }, "t"),
    ).toMatchObject({ inputs: { problem: "p" } });
    const decide = tool("agent_intent_decide").inputSchema;
    const viaPairs = parseInput(
      decide,
      { persona: [{ key: "role", value: "reviewer" }], tools: [{ name: "search", input_schema: '{"type":"object"}' }] },
      "t",
    );
    const viaObjects = parseInput(
      decide,
      { persona: { role: "reviewer" }, tools: [{ name: "search", input_schema: { type: "object" } }] },
      "t",
    );
    expect(viaPairs).toEqual(viaObjects);
    expect(jsonScalarSchema.safeParse({ nested: true }).success).toBe(false);
  });
});

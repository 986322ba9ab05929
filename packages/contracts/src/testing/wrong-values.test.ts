import { describe, expect, it } from "vitest";
import { z } from "zod";
import { allToolDefinitions } from "../catalogue.ts";
import { publishedSchemas } from "../json-schema.ts";
import { brokenJson, fieldsWithWrongValues, wrongValueFor } from "./wrong-values.ts";

describe("wrongValueFor", () => {
  it("gives every published field of every tool a value its own schema refuses, at that field", () => {
    let checked = 0;
    for (const tool of allToolDefinitions) {
      const properties = publishedSchemas(tool).input["properties"] as
        | Record<string, Record<string, unknown>>
        | undefined;
      for (const field of fieldsWithWrongValues(properties)) {
        for (let pick = 0; pick < 8; pick += 1) {
          const value = wrongValueFor(properties?.[field] ?? {}, pick);
          const result = tool.inputSchema.safeParse({ [field]: value });
          const paths = result.success ? [] : result.error.issues.map((issue) => issue.path.join("."));
          expect(paths, `${tool.name}.${field} = ${JSON.stringify(value)}`).toContain(field);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(400);
  });

  it("reads enums, consts and nullable types, and has nothing for a schema that accepts anything", () => {
    const json = z.toJSONSchema(
      z.object({
        kind: z.enum(["a", "b"]),
        fixed: z.literal("x"),
        maybe: z.string().nullable(),
        free: z.unknown(),
        either: z.union([z.string(), z.number()]),
      }),
      { io: "input" },
    ) as { properties: Record<string, Record<string, unknown>> };
    expect(wrongValueFor(json.properties["kind"] ?? {}, 3)).toBe("not-one-of-the-options-3");
    expect(wrongValueFor(json.properties["fixed"] ?? {}, 0)).toEqual({ not: "the constant" });
    expect(wrongValueFor({ type: ["string", "null"] }, 0)).toBe(12_345);
    expect(fieldsWithWrongValues(json.properties)).toEqual(["kind", "fixed", "maybe"]);
    expect(fieldsWithWrongValues(undefined)).toEqual([]);
  });
});

describe("brokenJson", () => {
  it("never parses, never is blank, and stays on one line", () => {
    const texts = [
      "",
      " ",
      "12",
      '{"a":1}',
      "[1,\n2]",
      '"text"',
      "null",
      "\r\n",
      '{"jsonrpc":"2.0","id":1,"method":"tools/list"',
    ];
    for (const text of texts) {
      for (let pick = 0; pick < 12; pick += 1) {
        const broken = brokenJson(text, pick);
        expect(() => JSON.parse(broken), JSON.stringify([text, pick, broken])).toThrow();
        expect(broken.trim()).not.toBe("");
        expect(broken).not.toMatch(/[\r\n]/);
      }
    }
  });
});

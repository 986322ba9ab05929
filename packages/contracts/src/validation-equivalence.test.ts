import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DeliberateError } from "@deliberate/base";
import { allToolDefinitions } from "./catalogue.ts";
import { holdsNulCharacter, mayHoldNull, scanInput } from "./input-scan.ts";
import { type JsonSchema, publishedSchemas } from "./json-schema.ts";
import { nullsAsAbsent } from "./null-as-absent.ts";
import { referenceParseInput } from "./test-reference-validation.ts";
import { wrongValueFor } from "./testing/wrong-values.ts";
import { parseInput } from "./validation.ts";

/** What a validator makes of a value: the parsed value, or the refusal (code, message, issues, hint). */
function outcome(parse: typeof parseInput, schema: z.ZodType, value: unknown): unknown {
  try {
    return { parsed: parse(schema, value, "tool") as unknown };
  } catch (error) {
    if (!(error instanceof DeliberateError)) throw error;
    return { code: error.code, message: error.message, issues: error.issues, hint: error.hint };
  }
}

const text = fc.oneof(
  { arbitrary: fc.constantFrom("x", "why is the build slow?", "ses_1", "a", "b"), weight: 4 },
  { arbitrary: fc.string({ maxLength: 6 }), weight: 1 },
  { arbitrary: fc.constantFrom("3", "-0.5", "true", "", " ", "a\u0000b", "\u0000"), weight: 1 },
);
const number = fc.oneof(
  { arbitrary: fc.constantFrom(0, 0.5, 1, 2, 3), weight: 4 },
  { arbitrary: fc.integer({ min: -3, max: 12 }), weight: 1 },
  { arbitrary: fc.double({ min: -2, max: 2, noNaN: true }), weight: 1 },
);

/** Values shaped by a published JSON Schema (so most calls get far into the schema), with nulls, U+0000 and wrong values mixed in. */
function valueFor(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const noise = fc.oneof(
    fc.constant(null),
    fc.constant("bad\u0000text"),
    fc.nat(6).map((pick) => wrongValueFor(schema, pick) ?? null),
  );
  return fc.oneof({ arbitrary: shaped(schema, depth), weight: 10 }, { arbitrary: noise, weight: 1 });
}

function shaped(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const branches = (schema["anyOf"] ?? schema["oneOf"]) as JsonSchema[] | undefined;
  if (branches && branches.length > 0) return fc.oneof(...branches.map((branch) => shaped(branch, depth)));
  if (Array.isArray(schema["enum"])) return fc.constantFrom(...(schema["enum"] as unknown[]));
  if ("const" in schema) return fc.constant(schema["const"]);
  const types = Array.isArray(schema["type"]) ? (schema["type"] as string[]) : [schema["type"] as string | undefined];
  return fc.oneof(...types.map((type) => ofType(schema, type, depth)));
}

function ofType(schema: JsonSchema, type: string | undefined, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "string":
      return text;
    case "number":
    case "integer":
      return fc.oneof(number, fc.constantFrom("3", "0.5"));
    case "boolean":
      return fc.oneof(fc.boolean(), fc.constantFrom("true", "false"));
    case "array": {
      if (depth > 4) return fc.constant([]);
      return fc.array(valueFor((schema["items"] as JsonSchema | undefined) ?? {}, depth + 1), { maxLength: 3 });
    }
    case "object": {
      const properties = (schema["properties"] as Record<string, JsonSchema> | undefined) ?? {};
      if (depth > 4) return fc.constant({});
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, property]) => [key, valueFor(property, depth + 1)]),
      );
      const required = ((schema["required"] as string[] | undefined) ?? []).filter((key) => key in model);
      const known = fc.record(model, { requiredKeys: required });
      // Now and then a key the schema does not know (refused by closed objects, dropped by open ones).
      return fc
        .tuple(known, fc.option(fc.constantFrom("unknown_field", "Content", "a\u0000key")))
        .map(([value, extra]) => (extra === null ? value : { ...value, [extra]: null }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A tool's input as zod describes it (optional fields not required; the published strict-client form requires every field). */
const inputJsonSchema = (tool: (typeof allToolDefinitions)[number]): JsonSchema =>
  z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" }) as JsonSchema;

const tools = allToolDefinitions.map((tool) => ({
  tool,
  // Both forms: zod's (optional fields often left out) and the published one (every field, null for the ones not given).
  values: fc.oneof(shaped(inputJsonSchema(tool), 0), shaped(publishedSchemas(tool).input, 0)),
}));

describe("parseInput (one scan, per-schema null plans) against the three-walk composition it replaced", () => {
  it.each(tools.map(({ tool, values }) => [tool.name, tool, values] as const))(
    "%s: accepts, parses and refuses exactly as before, with the same errors",
    (_name, tool, values) => {
      fc.assert(
        fc.property(values, (value) => {
          expect(outcome(parseInput, tool.inputSchema, value)).toStrictEqual(
            outcome(referenceParseInput, tool.inputSchema, value),
          );
        }),
        { numRuns: 60 },
      );
    },
  );

  it("the same on valid calls with nulls for optional fields, nested ones too, and U+0000 now and then", () => {
    const decision = allToolDefinitions.find(
      (tool) => tool.name === "reasoning_decision",
    ) as (typeof allToolDefinitions)[number];
    const criterion = (name: string) =>
      fc.record({
        name: fc.constantFrom(name, `${name}\u0000`),
        weight: fc.constantFrom(0.5, "0.5", null, undefined),
        direction: fc.constantFrom("cost", "benefit", null, undefined),
      });
    const call = fc.record({
      type: fc.constantFrom("weighted", "topsis", null),
      question: fc.constantFrom("Which database?", null),
      options: fc.constant(["SQLite", "Postgres"]),
      criteria: fc.tuple(criterion("cost"), criterion("scale")),
      scores: fc.constantFrom(
        [
          [1, 5],
          [6, 9],
        ],
        [
          [1, "5"],
          [6, 9],
        ],
        null,
      ),
      normalization: fc.constantFrom("none", null, undefined),
      stakeholders: fc.constantFrom(null, undefined),
      session_id: fc.constantFrom(null, undefined, "ses_1"),
    });
    let accepted = 0;
    fc.assert(
      fc.property(call, (value) => {
        const now = outcome(parseInput, decision.inputSchema, value);
        expect(now).toStrictEqual(outcome(referenceParseInput, decision.inputSchema, value));
        if (typeof now === "object" && now !== null && "parsed" in now) accepted += 1;
      }),
      { numRuns: 200 },
    );
    // Both paths are exercised: calls that pass (nulls dropped) and calls refused (U+0000, shapes).
    expect(accepted).toBeGreaterThan(10);
    expect(accepted).toBeLessThan(200);
  });

  it("the same on any JSON value (wrong shapes, nulls and U+0000 anywhere)", () => {
    const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(text, fc.jsonValue({ maxDepth: 2 })));
    fc.assert(
      fc.property(fc.constantFrom(...allToolDefinitions), anyValue, (tool, value) => {
        expect(outcome(parseInput, tool.inputSchema, value)).toStrictEqual(
          outcome(referenceParseInput, tool.inputSchema, value),
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe("scanInput", () => {
  it("finds U+0000 in a value, an array item or a key at any depth, and any null", () => {
    expect(scanInput({ a: [1, { b: "ok" }], c: "fine" })).toBe(0);
    expect(scanInput({ a: [1, { b: null }] })).toBe(mayHoldNull);
    expect(scanInput([null])).toBe(mayHoldNull);
    expect(scanInput(null)).toBe(mayHoldNull);
    expect(scanInput({ a: [{ b: "x\u0000" }] }) & holdsNulCharacter).toBe(holdsNulCharacter);
    expect(scanInput({ a: { "k\u0000": 1 } }) & holdsNulCharacter).toBe(holdsNulCharacter);
    expect(scanInput("\u0000") & holdsNulCharacter).toBe(holdsNulCharacter);
    expect(scanInput(42)).toBe(0);
  });

  it("says a null may be there whenever nullsAsAbsent would change the value (so skipping it on 0 loses nothing)", () => {
    const schema = z.object({
      note: z.string().optional(),
      items: z.array(z.object({ weight: z.number().optional() })).optional(),
    });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        if (nullsAsAbsent(schema, value) !== value) expect(scanInput(value) & mayHoldNull).toBe(mayHoldNull);
      }),
      { numRuns: 500 },
    );
  });

  it("ends on a value that refers to itself", () => {
    const looped: Record<string, unknown> = { text: "fine" };
    looped["self"] = looped;
    expect(scanInput(looped)).toBe(0);
    looped["late"] = "x\u0000";
    expect(scanInput(looped) & holdsNulCharacter).toBe(holdsNulCharacter);
  });
});

describe("nullsAsAbsent's per-schema plans", () => {
  it("are per schema: two schemas with the same field names keep their own answers", () => {
    const takesNull = z.object({ note: z.string().nullable().optional() });
    const optional = z.object({ note: z.string().optional() });
    for (let round = 0; round < 3; round += 1) {
      expect(nullsAsAbsent(takesNull, { note: null })).toEqual({ note: null });
      expect(nullsAsAbsent(optional, { note: null })).toEqual({});
    }
  });

  it("plan a recursive schema (z.lazy, getters) in finite time and clean it at every depth", () => {
    interface Node {
      label?: string | undefined;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.lazy(() => z.object({ label: z.string().optional(), children: z.array(node) }));
    const tree = { label: null, children: [{ label: null, children: [{ label: "leaf", children: [] }] }] };
    expect(parseInput(node, tree, "t")).toEqual({ children: [{ children: [{ label: "leaf", children: [] }] }] });
    const category = z.object({
      name: z.string().optional(),
      get parent() {
        return category.optional();
      },
    });
    expect(nullsAsAbsent(category, { name: null, parent: { name: null, parent: null } })).toEqual({ parent: {} });
  });
});

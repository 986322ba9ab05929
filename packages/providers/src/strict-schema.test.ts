import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fromStrictAnswer } from "./strict-answer.ts";
import { toStrictSchema } from "./strict-schema.ts";
import { checkAnswer, describeAnswerFormat } from "./structured-answer.ts";
import { anthropicStrictSchemaProblem, openaiStrictSchemaProblem } from "./testing/fake-schema-rules.ts";

/**
 * Random answer schemas (objects with optional and nullable fields, bounded
 * strings and numbers, patterns, enums, arrays with minimums, records,
 * discriminated unions, non-object roots) with, for each, random answers in
 * the strict form and the answer the original schema expects.
 * STRICT_RUNS=20000 runs the properties longer than the suite does (300).
 */
type Shape =
  | { kind: "string"; min: number; max: number | undefined; pattern: boolean }
  | { kind: "number"; min: number; max: number; integer: boolean }
  | { kind: "boolean" }
  | { kind: "enum"; values: string[] }
  | { kind: "array"; item: Shape; min: number }
  | { kind: "object"; fields: Array<{ key: string; shape: Shape; optional: boolean }> }
  | { kind: "record"; value: Shape }
  | { kind: "nullable"; inner: Shape }
  | { kind: "union"; branches: Array<Array<{ key: string; shape: Shape }>> };

const keyArbitrary = fc.constantFrom("alpha", "beta", "gamma", "delta", "epsilon", "zeta");

const leaf: fc.Arbitrary<Shape> = fc.oneof(
  fc.record({
    kind: fc.constant("string" as const),
    min: fc.integer({ min: 0, max: 3 }),
    max: fc.option(fc.integer({ min: 3, max: 12 }), { nil: undefined }),
    pattern: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant("number" as const),
    min: fc.integer({ min: -5, max: 0 }),
    max: fc.integer({ min: 1, max: 10 }),
    integer: fc.boolean(),
  }),
  fc.constant({ kind: "boolean" as const }),
  fc.record({
    kind: fc.constant("enum" as const),
    values: fc.uniqueArray(fc.constantFrom("red", "green", "blue", "amber"), { minLength: 1, maxLength: 3 }),
  }),
);

const { shape: shapeArbitrary } = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ kind: fc.constant("array" as const), item: tie("shape"), min: fc.integer({ min: 0, max: 3 }) }),
    fc.record({
      kind: fc.constant("object" as const),
      fields: fc.uniqueArray(fc.record({ key: keyArbitrary, shape: tie("shape"), optional: fc.boolean() }), {
        minLength: 1,
        maxLength: 3,
        selector: (field) => field.key,
      }),
    }),
    fc.record({ kind: fc.constant("record" as const), value: leaf }),
    fc.record({ kind: fc.constant("nullable" as const), inner: leaf }),
    fc.record({
      kind: fc.constant("union" as const),
      branches: fc.array(
        fc.uniqueArray(fc.record({ key: keyArbitrary, shape: leaf }), {
          minLength: 1,
          maxLength: 2,
          selector: (field) => field.key,
        }),
        { minLength: 2, maxLength: 3 },
      ),
    }),
  ),
}));

const rootArbitrary: fc.Arbitrary<Shape> = fc.oneof(
  fc.record({
    kind: fc.constant("object" as const),
    fields: fc.uniqueArray(fc.record({ key: keyArbitrary, shape: shapeArbitrary, optional: fc.boolean() }), {
      minLength: 1,
      maxLength: 4,
      selector: (field) => field.key,
    }),
  }),
  shapeArbitrary,
);

function toZod(shape: Shape): z.ZodType {
  switch (shape.kind) {
    case "string": {
      let schema = z.string().min(shape.min);
      if (shape.max !== undefined) schema = schema.max(shape.max);
      return shape.pattern ? schema.regex(/^[a-z_]*$/) : schema;
    }
    case "number":
      return (shape.integer ? z.number().int() : z.number()).min(shape.min).max(shape.max);
    case "boolean":
      return z.boolean();
    case "enum":
      return z.enum(shape.values as [string, ...string[]]);
    case "array":
      return z.array(toZod(shape.item)).min(shape.min);
    case "object":
      return z.object(
        Object.fromEntries(
          shape.fields.map((field) => [field.key, field.optional ? toZod(field.shape).optional() : toZod(field.shape)]),
        ),
      );
    case "record":
      return z.record(z.string(), toZod(shape.value));
    case "nullable":
      return toZod(shape.inner).nullable();
    case "union":
      return z.union(
        shape.branches.map((fields, index) =>
          z.object({
            kind: z.literal(`branch${index}`),
            ...Object.fromEntries(
              fields.map((field) => [field.key === "kind" ? "kind_" : field.key, toZod(field.shape)]),
            ),
          }),
        ) as never,
      );
  }
}

/** An answer in the strict form, and the same answer as the original schema expects it. */
interface Pair {
  strict: unknown;
  original: unknown;
}

const same = (arbitrary: fc.Arbitrary<unknown>): fc.Arbitrary<Pair> =>
  arbitrary.map((value) => ({ strict: value, original: value }));

function pairs(shape: Shape): fc.Arbitrary<Pair> {
  switch (shape.kind) {
    case "string": {
      const maxLength = shape.max ?? shape.min + 6;
      return same(
        shape.pattern
          ? fc.stringMatching(new RegExp(`^[a-z_]{${shape.min},${maxLength}}$`))
          : fc.string({ minLength: shape.min, maxLength }),
      );
    }
    case "number":
      return same(
        shape.integer
          ? fc.integer({ min: shape.min, max: shape.max })
          : fc.double({ min: shape.min, max: shape.max, noNaN: true }),
      );
    case "boolean":
      return same(fc.boolean());
    case "enum":
      return same(fc.constantFrom(...shape.values));
    case "array":
      return fc
        .array(pairs(shape.item), { minLength: shape.min, maxLength: shape.min + 2 })
        .map((items) => ({ strict: items.map((item) => item.strict), original: items.map((item) => item.original) }));
    case "object":
      return fc
        .tuple(
          ...shape.fields.map((field) =>
            field.optional ? fc.option(pairs(field.shape), { nil: null }) : pairs(field.shape),
          ),
        )
        .map((values) => {
          const strict: Record<string, unknown> = {};
          const original: Record<string, unknown> = {};
          shape.fields.forEach((field, index) => {
            const value = values[index] as Pair | null;
            strict[field.key] = value === null ? null : value.strict;
            // A null for an optional field that accepts null stays null (both readings are valid); otherwise it means "absent".
            if (value !== null) original[field.key] = value.original;
            else if (field.shape.kind === "nullable") original[field.key] = null;
          });
          return { strict, original };
        });
    case "record":
      return fc
        .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), pairs(shape.value)), {
          maxLength: 3,
          selector: ([key]) => key,
        })
        .map((entries) => ({
          strict: entries.map(([key, value]) => ({ key, value: value.strict })),
          original: Object.fromEntries(entries.map(([key, value]) => [key, value.original])),
        }));
    case "nullable":
      return fc
        .option(pairs(shape.inner), { nil: null })
        .map((value) => (value === null ? { strict: null, original: null } : value));
    case "union":
      return fc.oneof(
        ...shape.branches.map((fields, index) =>
          fc.tuple(...fields.map((field) => pairs(field.shape))).map((values) => {
            const strict: Record<string, unknown> = { kind: `branch${index}` };
            const original: Record<string, unknown> = { kind: `branch${index}` };
            fields.forEach((field, position) => {
              const key = field.key === "kind" ? "kind_" : field.key;
              strict[key] = (values[position] as Pair).strict;
              original[key] = (values[position] as Pair).original;
            });
            return { strict, original };
          }),
        ),
      );
  }
}

const isObjectRoot = (shape: Shape) => shape.kind === "object";

describe("toStrictSchema", () => {
  it("turns every generated schema into one both strict subsets accept", () => {
    fc.assert(
      fc.property(rootArbitrary, (shape) => {
        const format = describeAnswerFormat({ schema: toZod(shape), schemaName: "property", warn: () => {} });
        // Only the documented size limits can keep these shapes out of the strict subset.
        for (const problem of format.strictProblems)
          expect(problem).toMatch(/nested more than 10 levels|more than 16 union-typed/);
        fc.pre(format.strict);
        expect(openaiStrictSchemaProblem(format.jsonSchema)).toBeUndefined();
        expect(anthropicStrictSchemaProblem(format.jsonSchema)).toBeUndefined();
        expect(format.wrapped).toBe(!isObjectRoot(shape));
      }),
      { numRuns: Number(process.env["STRICT_RUNS"] ?? 300) },
    );
  });

  it("maps every strict-form answer back to the answer the original schema accepts", () => {
    fc.assert(
      fc.property(
        rootArbitrary.chain((shape) => fc.tuple(fc.constant(shape), pairs(shape))),
        ([shape, pair]) => {
          const schema = toZod(shape);
          const format = describeAnswerFormat({ schema, schemaName: "property", warn: () => {} });
          const strictAnswer = format.wrapped ? { value: pair.strict } : pair.strict;
          const check = checkAnswer(schema, { ok: true, value: strictAnswer }, format);
          expect(check).toEqual({ ok: true, value: pair.original });
        },
      ),
      { numRuns: Number(process.env["STRICT_RUNS"] ?? 300) },
    );
  });

  it("leaves an answer already in the original form as it is", () => {
    fc.assert(
      fc.property(
        rootArbitrary.chain((shape) => fc.tuple(fc.constant(shape), pairs(shape))),
        ([shape, pair]) => {
          const format = describeAnswerFormat({ schema: toZod(shape), schemaName: "property", warn: () => {} });
          const hasRecord = JSON.stringify(shape).includes('"record"');
          // Records are the one shape whose two forms differ without a null: skip them here.
          fc.pre(!hasRecord);
          expect(fromStrictAnswer(pair.original, format.looseJsonSchema)).toEqual(pair.original);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("closes every object, requires every property, makes optional ones nullable and says the dropped bounds", () => {
    const schema = z.object({
      name: z.string().min(3).max(40).describe("Who"),
      age: z.number().int().min(0).max(150).optional(),
      tags: z.array(z.string()).min(2).max(5),
      scores: z.record(z.enum(["logic", "clarity"]), z.number().min(0).max(1)),
    });
    const format = describeAnswerFormat({ schema, schemaName: "person", warn: () => {} });
    expect(format.jsonSchema).toEqual({
      type: "object",
      properties: {
        name: { type: "string", description: "Who (3 to 40 characters)" },
        age: {
          anyOf: [{ type: "integer" }, { type: "null" }],
          description: "(at least 0; at most 150) (null when absent)",
        },
        tags: { type: "array", items: { type: "string" }, minItems: 1, description: "(2 to 5 items)" },
        scores: {
          type: "array",
          items: {
            type: "object",
            properties: {
              key: { type: "string", enum: ["logic", "clarity"] },
              value: { type: "number", description: "(at least 0; at most 1)" },
            },
            required: ["key", "value"],
            additionalProperties: false,
          },
          description: "(one entry per key, each key once)",
        },
      },
      required: ["name", "age", "tags", "scores"],
      additionalProperties: false,
    });
  });

  it("says why a schema cannot fit: any value, a record of anything, recursion", () => {
    const anything = toStrictSchema({ type: "object", properties: { data: {} }, required: ["data"] });
    expect(anything).toEqual({ fits: false, reasons: ["data accepts any value"] });
    const loose = toStrictSchema({
      type: "object",
      properties: { args: { type: "object", additionalProperties: {} } },
    });
    expect(loose).toEqual({ fits: false, reasons: ["args is an object of any shape"] });
    const recursive = toStrictSchema({ type: "object", properties: { child: { $ref: "#" } } });
    expect(recursive).toMatchObject({ fits: false, reasons: [expect.stringContaining("recursive")] });
    const rootUnion = toStrictSchema({ type: "object", anyOf: [{ type: "object" }] });
    expect(rootUnion).toMatchObject({ fits: false });
  });

  it("inlines references and merges allOf", () => {
    const result = toStrictSchema({
      type: "object",
      $defs: { point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
      properties: {
        at: { $ref: "#/$defs/point" },
        both: {
          allOf: [
            { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
            { type: "object", properties: { b: { type: "boolean" } } },
          ],
        },
      },
      required: ["at", "both"],
    });
    expect(result).toMatchObject({
      fits: true,
      schema: {
        properties: {
          at: { type: "object", properties: { x: { type: "number" } }, additionalProperties: false },
          both: {
            type: "object",
            properties: { a: { type: "string" }, b: { anyOf: [{ type: "boolean" }, { type: "null" }] } },
            required: ["a", "b"],
          },
        },
      },
    });
    expect(JSON.stringify(result)).not.toContain("$ref");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DeliberateError } from "@deliberate/base";
import { allToolDefinitions } from "./catalogue.ts";
import { publishedSchemas } from "./json-schema.ts";
import { nullsAsAbsent } from "./null-as-absent.ts";
import { parseInput } from "./validation.ts";

/** What parseInput makes of a value: the parsed input (a field parsed as null reads as absent), or the refusal's field issues. */
function outcome(schema: z.ZodType, value: unknown): unknown {
  try {
    const parsed = parseInput(schema, value, "tool") as unknown;
    if (typeof parsed !== "object" || parsed === null) return { parsed };
    return { parsed: Object.fromEntries(Object.entries(parsed).filter(([, item]) => item !== null)) };
  } catch (error) {
    if (error instanceof DeliberateError) return { refused: error.issues };
    throw error;
  }
}

/** Each tool's optional top-level fields, as it publishes them. */
const optionalFields = allToolDefinitions.map((tool, index) => {
  const input = publishedSchemas(tool).input;
  const required = new Set((input["required"] as string[] | undefined) ?? []);
  return {
    index,
    fields: Object.keys((input["properties"] as Record<string, unknown> | undefined) ?? {}).filter(
      (field) => !required.has(field),
    ),
  };
});

describe("null for an optional field", () => {
  it("counts as not given, for every optional field of every tool (any subset of them, any base)", () => {
    expect(optionalFields.reduce((sum, entry) => sum + entry.fields.length, 0)).toBeGreaterThan(100);
    const bases = fc.constantFrom<Record<string, unknown>>(
      {},
      { content: "why is the build slow?" },
      { operation: "list" },
      { query: "summary" },
      { type: "bias", content: "x" },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...optionalFields),
        bases,
        fc.infiniteStream(fc.boolean()),
        ({ index, fields }, base, picks) => {
          const tool = allToolDefinitions[index] as (typeof allToolDefinitions)[number];
          const nulled = fields.filter(() => picks.next().value as boolean);
          const without = Object.fromEntries(Object.entries(base).filter(([key]) => !nulled.includes(key)));
          const withNulls = { ...without, ...Object.fromEntries(nulled.map((field) => [field, null])) };
          expect(outcome(tool.inputSchema, withNulls)).toEqual(outcome(tool.inputSchema, without));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("every optional field at once: each tool answers as if they were left out", () => {
    for (const { index, fields } of optionalFields) {
      const tool = allToolDefinitions[index] as (typeof allToolDefinitions)[number];
      const withNulls = Object.fromEntries(fields.map((field) => [field, null]));
      expect(outcome(tool.inputSchema, withNulls), tool.name).toEqual(outcome(tool.inputSchema, {}));
    }
  });

  it("lets a default apply, as when the field is left out", () => {
    const schema = z.object({ depth: z.number().default(3), name: z.string().optional() });
    expect(parseInput(schema, { depth: null, name: null }, "t")).toEqual({ depth: 3 });
  });

  it("is removed at any depth: in nested objects, array items and union branches", () => {
    const item = z.strictObject({ name: z.string(), weight: z.number().optional() });
    const schema = z.object({
      items: z.array(item),
      nested: z.object({ inner: z.object({ note: z.string().optional() }) }),
      either: z.union([z.strictObject({ kind: z.literal("a"), extra: z.string().optional() }), z.string()]),
    });
    const value = {
      items: [{ name: "x", weight: null }],
      nested: { inner: { note: null } },
      either: { kind: "a", extra: null },
    };
    expect(parseInput(schema, value, "t")).toEqual({
      items: [{ name: "x" }],
      nested: { inner: {} },
      either: { kind: "a" },
    });
  });

  it("stays null where the field takes null itself, and leaves the caller's value untouched", () => {
    const schema = z.object({ summary: z.string().nullish(), note: z.string().optional() });
    const value = { summary: null, note: null };
    expect(parseInput(schema, value, "t")).toEqual({ summary: null });
    expect(value).toEqual({ summary: null, note: null });
    expect(nullsAsAbsent(schema, { summary: "s" })).toEqual({ summary: "s" });
  });

  it("gives back the caller's value itself when it holds no null to drop, and keeps keys order and own __proto__ keys when it does", () => {
    const schema = z.object({
      items: z.array(z.object({ name: z.string(), weight: z.number().optional() })),
      tags: z.record(z.string(), z.object({ note: z.string().optional() })),
      extra: z.record(z.string(), z.unknown()).optional(),
      note: z.string().optional(),
    });
    const clean = { items: [{ name: "x", weight: 1 }], tags: { a: { note: "n" } }, note: "kept" };
    expect(nullsAsAbsent(schema, clean)).toBe(clean);
    const value = JSON.parse(
      '{"__proto__": {"polluted": true}, "items": [{"name": "x"}, {"name": "y", "weight": null}], "tags": {"a": {}, "b": {"note": null}}, "note": null}',
    );
    const cleaned = nullsAsAbsent(schema, value) as Record<string, unknown>;
    expect(Object.keys(cleaned)).toEqual(["__proto__", "items", "tags"]);
    expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
    expect(cleaned["items"]).toEqual([{ name: "x" }, { name: "y" }]);
    expect((cleaned["items"] as unknown[])[0]).toBe(value.items[0]);
    expect(cleaned["tags"]).toEqual({ a: {}, b: {} });
    expect(value.note).toBeNull();
  });

  it("is still refused for a required field, naming it", () => {
    const checkpoint = allToolDefinitions.find((tool) => tool.name === "reasoning_checkpoint");
    expect(checkpoint).toBeDefined();
    const refusal = outcome(checkpoint?.inputSchema as z.ZodType, { operation: "list", session_id: null }) as {
      refused?: Array<{ field: string }>;
    };
    expect(refusal.refused?.map((issue) => issue.field)).toContain("session_id");
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toJsonSchema } from "./json-schema.ts";
import { builtSchema, lazySchema } from "./lazy-schema.ts";
import { parseInput } from "./validation.ts";

/** A schema and how many times it was built. */
function counted<S>(build: () => S): { schema: S; builds: () => number } {
  let builds = 0;
  return {
    schema: lazySchema(() => {
      builds += 1;
      return build() as S & object;
    }) as S,
    builds: () => builds,
  };
}

const itemShape = () =>
  z
    .object({ name: z.string().min(1, "name must not be empty"), weight: z.number().optional() })
    .describe("One item, named");

describe("lazySchema", () => {
  it("builds nothing until first touched, then once, however it is used", () => {
    const item = counted(itemShape);
    const list = counted(() => z.object({ items: z.array(item.schema).min(1) }).meta({ title: "ItemList" }));
    expect(item.builds()).toBe(0);
    expect(list.builds()).toBe(0);
    for (let round = 0; round < 3; round += 1) {
      expect(list.schema.parse({ items: [{ name: "a" }] })).toEqual({ items: [{ name: "a" }] });
      expect(list.schema.safeParse({ items: [{ name: "" }] }).success).toBe(false);
    }
    expect(list.builds()).toBe(1);
    expect(item.builds()).toBe(1);
  });

  it("once built, holds the schemas it was composed of, not their stand-ins (a parse meets no Proxy)", () => {
    const item = lazySchema(itemShape);
    const direction = lazySchema(() => z.enum(["benefit", "cost"]));
    const list = lazySchema(() =>
      z.object({
        items: z.array(item).min(1),
        either: z.union([item, z.string()]),
        direction: direction.optional(),
        nested: z.object({ item }),
      }),
    );
    const built = builtSchema(list);
    expect(built).not.toBe(list);
    const shape = built.shape;
    expect(shape.items._zod.def.element).toBe(builtSchema(item));
    expect(shape.either.options[0]).toBe(builtSchema(item));
    expect(shape.direction.unwrap()).toBe(builtSchema(direction));
    expect(shape.nested.shape.item).toBe(builtSchema(item));
    expect(builtSchema(shape)).toBe(shape);
  });

  it("parses, refuses and names fields exactly as the schema it stands for", () => {
    const eager = z.object({ items: z.array(itemShape()).min(1), note: z.string().optional() });
    const lazy = lazySchema(() =>
      z.object({ items: z.array(lazySchema(itemShape)).min(1), note: z.string().optional() }),
    );
    const values: unknown[] = [
      { items: [{ name: "a", weight: 2 }] },
      { items: [{ name: "a", weight: null }], note: null },
      { items: [] },
      { items: [{ name: "" }], extra: 1 },
      { items: [{ name: "a\u0000" }] },
      "not an object",
    ];
    const outcome = (schema: z.ZodType, value: unknown) => {
      try {
        return { parsed: parseInput(schema, value, "t") as unknown };
      } catch (error) {
        return { refused: (error as Error).message };
      }
    };
    for (const value of values) expect(outcome(lazy, value)).toEqual(outcome(eager, value));
  });

  it("publishes the same JSON Schema (descriptions, titles and defaults kept, at the root and nested)", () => {
    const build = () =>
      z
        .object({
          items: z.array(itemShape()).describe("What to weigh"),
          depth: z.number().int().default(3),
        })
        .meta({ title: "Weighing", description: "Weighs items" });
    const lazyItem = lazySchema(itemShape);
    const nested = lazySchema(() =>
      z
        .object({ items: z.array(lazyItem).describe("What to weigh"), depth: z.number().int().default(3) })
        .meta({ title: "Weighing", description: "Weighs items" }),
    );
    for (const io of ["input", "output"] as const) {
      expect(toJsonSchema(lazySchema(build), io)).toEqual(toJsonSchema(build(), io));
      expect(toJsonSchema(nested, io)).toEqual(toJsonSchema(build(), io));
    }
  });

  it("stands for a zod schema: instanceof, composition, introspection", () => {
    const item = lazySchema(itemShape);
    expect(item instanceof z.ZodType).toBe(true);
    expect(Object.keys(item.shape)).toEqual(["name", "weight"]);
    expect(item.extend({ extra: z.boolean() }).parse({ name: "a", extra: true })).toEqual({ name: "a", extra: true });
    expect(item.optional().parse(undefined)).toBeUndefined();
    expect(item.description).toBe("One item, named");
  });

  it("shares metadata but not a registry id (one id names one schema)", () => {
    const identified = lazySchema(() => z.object({ a: z.string() }).meta({ id: "lazy-schema-test-id", title: "T" }));
    // Looking it up touches it (builds it); registering the stand-in with the same id would throw.
    expect(z.globalRegistry.get(identified as z.ZodType)).toEqual({ title: "T" });
    expect(identified.parse({ a: "x" })).toEqual({ a: "x" });
  });
});

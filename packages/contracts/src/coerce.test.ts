import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DeliberateError } from "@deliberate/base";
import { allToolDefinitions } from "./catalogue.ts";
import {
  decimalNumberPattern,
  keepCoercedDefaults,
  looseBoolean,
  looseInteger,
  looseNumber,
  nonEmptyText,
  unitInterval,
} from "./coerce.ts";
import { treeInputSchema } from "./reasoning/tree.ts";
import { parseInput } from "./validation.ts";

/** Any string decorated the ways that used to slip through: spaces, NBSP, signs, radix prefixes, case. */
const decorations = [
  (text: string) => ` ${text} `,
  (text: string) => `\u00a0${text}`,
  (text: string) => `${text}\n`,
  (text: string) => `+${text}`,
  (text: string) => `0x${text}`,
  (text: string) => `0b${text}`,
  (text: string) => `0o${text}`,
  (text: string) => `${text}.`,
  (text: string) => `${text}_0`,
];

describe("loose numbers and booleans", () => {
  it("accept any finite number, as itself or as its decimal string", () => {
    const schema = looseNumber(z.number());
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(schema.parse(value)).toBe(value);
        expect(schema.parse(String(value))).toBe(Number(String(value)));
        expect(decimalNumberPattern.test(String(value))).toBe(true);
      }),
    );
  });

  it("reject every string that is not a plain decimal number", () => {
    const schema = looseNumber(z.number());
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme-ascii" }).filter((text) => !decimalNumberPattern.test(text)),
        (text) => {
          expect(schema.safeParse(text).success).toBe(false);
        },
      ),
    );
  });

  it("reject decorated numbers: spaces, NBSP, signs, hex / binary / octal prefixes", () => {
    const schema = looseNumber(z.number());
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom(...decorations), (value, decorate) => {
        expect(schema.safeParse(decorate(String(value))).success).toBe(false);
      }),
    );
    for (const text of [
      "0x3",
      "0b0",
      "0o7",
      " 3 ",
      "\u00a03",
      "3\u00a0",
      "Infinity",
      "-Infinity",
      "NaN",
      "1e400",
      ".5",
      "3.",
      "007",
      "",
      " ",
    ]) {
      expect(schema.safeParse(text).success, JSON.stringify(text)).toBe(false);
    }
    expect(unitInterval().safeParse("1.5").success).toBe(false);
    expect(unitInterval().parse("0.25")).toBe(0.25);
    expect(schema.parse("-1.5e-3")).toBe(-0.0015);
  });

  it("take integers within bounds only", () => {
    const schema = looseInteger({ min: 2, max: 4 });
    fc.assert(
      fc.property(fc.integer({ min: -1000, max: 1000 }), (value) => {
        const inRange = value >= 2 && value <= 4;
        expect(schema.safeParse(value).success).toBe(inRange);
        expect(schema.safeParse(String(value)).success).toBe(inRange);
      }),
    );
    expect(schema.safeParse("3.5").success).toBe(false);
    expect(schema.safeParse("0x3").success).toBe(false);
    expect(schema.safeParse(" 3 ").success).toBe(false);
  });

  it("accept exactly true / false as boolean strings, nothing else", () => {
    const schema = looseBoolean();
    expect(schema.parse("true")).toBe(true);
    expect(schema.parse("false")).toBe(false);
    expect(schema.parse(true)).toBe(true);
    for (const text of ["\u00a0TRUE ", " TRUE ", "TRUE", "True", "true ", " false", "1", "0", "yes", ""]) {
      expect(schema.safeParse(text).success, JSON.stringify(text)).toBe(false);
    }
    fc.assert(
      fc.property(
        fc.string().filter((text) => text !== "true" && text !== "false"),
        (text) => {
          expect(schema.safeParse(text).success).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.constantFrom("true", "false"),
        fc.constantFrom(...decorations, (text: string) => text.toUpperCase()),
        (word, decorate) => {
          expect(schema.safeParse(decorate(word)).success).toBe(false);
        },
      ),
    );
  });

  it("refuse blank text", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\s*$/), (blank) => {
        expect(nonEmptyText("content").safeParse(blank).success).toBe(false);
      }),
    );
  });
});

describe("keepCoercedDefaults", () => {
  it("publishes the default of every defaulted field of every tool input, loose ones included", () => {
    let checked = 0;
    for (const tool of allToolDefinitions) {
      const shape = (tool.inputSchema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
      const json = z.toJSONSchema(tool.inputSchema, {
        io: "input",
        unrepresentable: "any",
        override: keepCoercedDefaults,
      }) as {
        properties?: Record<string, { default?: unknown }>;
        required?: string[];
      };
      for (const [name, field] of Object.entries(shape)) {
        const definition = field._zod.def as { type: string; defaultValue?: unknown };
        if (definition.type !== "default") continue;
        checked += 1;
        expect(json.properties?.[name]?.default, `${tool.name}.${name}`).toEqual(definition.defaultValue);
        expect(json.required ?? [], `${tool.name}.${name}`).not.toContain(name);
      }
    }
    // num_branches, k, iterations, exploration_constant, quality_threshold, limit, check_formal, ...
    expect(checked).toBeGreaterThan(15);
  });

  it("keeps defaults the plain conversion drops", () => {
    const schema = z.object({
      k: looseInteger({ min: 1 }).default(3),
      on: looseBoolean().default(false),
      items: z.array(z.object({ n: looseNumber(z.number()).default(0.5) })).default([]),
    });
    const plain = z.toJSONSchema(schema, { io: "input" }) as { properties: Record<string, { default?: unknown }> };
    expect(plain.properties["k"]?.default).toBeUndefined();
    const kept = z.toJSONSchema(schema, { io: "input", override: keepCoercedDefaults }) as {
      properties: Record<string, { default?: unknown; items?: { properties: Record<string, { default?: unknown }> } }>;
    };
    expect(kept.properties["k"]?.default).toBe(3);
    expect(kept.properties["on"]?.default).toBe(false);
    expect(kept.properties["items"]?.default).toEqual([]);
    expect(kept.properties["items"]?.items?.properties["n"]?.default).toBe(0.5);
  });
});

describe("parseInput", () => {
  it("names every bad field, including those an operation requires, and says nothing was written", () => {
    const error = (() => {
      try {
        parseInput(treeInputSchema, { operation: "focus", num_branches: "9" }, "reasoning_tree");
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(DeliberateError.isInstance(error)).toBe(true);
    if (!DeliberateError.isInstance(error)) return;
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["branch_id", "num_branches", "session_id"]);
    expect(error.issues.find((issue) => issue.field === "branch_id")?.message).toBe(
      "branch_id is required for operation 'focus'",
    );
    expect(error.hint).toContain("nothing was written");
  });

  it("never throws anything but INVALID_INPUT, for any tool, whatever JSON arrives", () => {
    fc.assert(
      fc.property(fc.constantFrom(...allToolDefinitions), fc.jsonValue(), (tool, value) => {
        try {
          parseInput(tool.inputSchema, value, tool.name);
        } catch (caught) {
          expect(DeliberateError.isInstance(caught) && caught.code).toBe("INVALID_INPUT");
          expect(DeliberateError.isInstance(caught) && caught.issues.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

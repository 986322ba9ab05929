import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { looseBoolean, looseInteger, looseNumber, nonEmptyText, unitInterval } from "./coerce.ts";
import { DeliberateError } from "@deliberate/base";
import { allToolDefinitions } from "./catalogue.ts";
import { treeInputSchema } from "./reasoning/tree.ts";
import { parseInput } from "./validation.ts";

describe("loose numbers and booleans", () => {
  it("accept any finite number, as itself or as its decimal string", () => {
    const schema = looseNumber(z.number());
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(schema.parse(value)).toBe(value);
        expect(schema.parse(String(value))).toBe(Number(String(value)));
      }),
    );
  });

  it("reject strings that are not numbers, and keep bounds", () => {
    fc.assert(
      fc.property(
        fc.string().filter((text) => text.trim() === "" || !Number.isFinite(Number(text.trim()))),
        (text) => {
          expect(looseNumber(z.number()).safeParse(text).success).toBe(false);
        },
      ),
    );
    expect(unitInterval().safeParse("1.5").success).toBe(false);
    expect(unitInterval().parse("0.25")).toBe(0.25);
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
  });

  it("accept only true/false (any case, trimmed) as boolean strings", () => {
    const schema = looseBoolean();
    expect(schema.parse(" TRUE ")).toBe(true);
    expect(schema.parse("false")).toBe(false);
    fc.assert(
      fc.property(fc.string().filter((text) => !["true", "false"].includes(text.trim().toLowerCase())), (text) => {
        expect(schema.safeParse(text).success).toBe(false);
      }),
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
    expect(error.issues.find((issue) => issue.field === "branch_id")?.message).toBe("branch_id is required for operation 'focus'");
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

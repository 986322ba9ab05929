import { ConfigError, DeliberateError } from "@deliberate/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combineConfigProblems, createEnvReader } from "./env-reader.ts";

function failureOf(run: () => void): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("createEnvReader", () => {
  it("reads values, treating blank as unset", () => {
    const reader = createEnvReader({ A: "  x ", B: "   ", N: "42", F: "off", C: "Two" });
    expect(reader.text("A")).toBe("x");
    expect(reader.text("B")).toBeUndefined();
    expect(reader.integer("N", 1, { min: 0, max: 100 })).toBe(42);
    expect(reader.integer("MISSING", 7, { min: 0 })).toBe(7);
    expect(reader.flag("F", true)).toBe(false);
    expect(reader.choice("C", ["one", "two"] as const)).toBe("two");
    expect(() => reader.finish()).not.toThrow();
  });

  it("collects every bad variable into one ConfigError naming each, with the fix", () => {
    const reader = createEnvReader({ N: "lots", F: "maybe", C: "three" });
    expect(reader.integer("N", 5, { min: 1, max: 9, unit: "seconds" })).toBe(5);
    expect(reader.flag("F", true)).toBe(true);
    expect(reader.choice("C", ["one", "two"])).toBeUndefined();
    const error = failureOf(() => reader.finish());
    expect(error.variables).toEqual(["N", "F", "C"]);
    expect(error.message).toBe(
      'Invalid configuration: N must be a whole number of seconds from 1 to 9 (got "lots"); F must be 1 or 0 (got "maybe"); C must be one of one, two (got "three").',
    );
  });

  it("collects what throwing parsers report (ConfigError, DeliberateError field issues) and rethrows anything else", () => {
    const reader = createEnvReader({});
    expect(
      reader.attempt(() => {
        throw new ConfigError("X must be set.", ["X"]);
      }, "fallback"),
    ).toBe("fallback");
    const issues = [{ field: "ANTHROPIC_API_KEY", message: "must not be blank" }];
    reader.attempt(() => {
      throw new DeliberateError({ code: "INVALID_INPUT", message: "bad provider", issues });
    }, undefined);
    expect(() =>
      reader.attempt(() => {
        throw new TypeError("a bug");
      }, undefined),
    ).toThrow(TypeError);
    const error = failureOf(() => reader.finish());
    expect(error.variables).toEqual(["X", "ANTHROPIC_API_KEY"]);
    expect(error.message).toBe("Invalid configuration: X must be set; ANTHROPIC_API_KEY must not be blank.");
  });

  it("names n bad whole-number variables in one error, each once (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[A-Z][A-Z_]{0,11}$/), { minLength: 1, maxLength: 8 }),
        fc.stringMatching(/^[a-z]{1,5}$/),
        (names, value) => {
          const reader = createEnvReader(Object.fromEntries(names.map((name) => [name, value])));
          for (const name of names) reader.integer(name, 1, { min: 0 });
          const error = failureOf(() => reader.finish());
          expect(error.variables).toEqual(names);
          for (const name of names)
            expect(error.message).toContain(`${name} must be a whole number >= 0 (got "${value}")`);
        },
      ),
    );
  });

  it("accepts integers exactly within their bounds (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (value, a, b) => {
          const [min, max] = a <= b ? [a, b] : [b, a];
          const reader = createEnvReader({ V: String(value) });
          const read = reader.integer("V", -1, { min, max });
          const inside = value >= min && value <= max;
          expect(read).toBe(inside ? value : -1);
          expect(reader.problems.length).toBe(inside ? 0 : 1);
        },
      ),
    );
  });

  it("combineConfigProblems names a variable shared by two problems once", () => {
    const error = combineConfigProblems([
      { message: "A is bad.", variables: ["A", "B"] },
      { message: "B is bad", variables: ["B"] },
    ]);
    expect(error.variables).toEqual(["A", "B"]);
    expect(error.message).toBe("Invalid configuration: A is bad; B is bad.");
  });
});

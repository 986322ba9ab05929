import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, DeliberateError, readList, toDeliberateError } from "./index.ts";

describe("DeliberateError", () => {
  it("is recognised across copies by its marker, and serialises to the error body", () => {
    const error = new DeliberateError({
      code: "INVALID_INPUT",
      message: "bad",
      issues: [{ field: "k", message: "must be >= 1" }],
      hint: "Send k >= 1.",
    });
    expect(DeliberateError.isInstance(error)).toBe(true);
    expect(DeliberateError.isInstance(new Error("plain"))).toBe(false);
    expect(DeliberateError.isInstance({ code: "INVALID_INPUT" })).toBe(false);
    expect(error.toJSON()).toEqual({
      code: "INVALID_INPUT",
      message: "bad",
      issues: [{ field: "k", message: "must be >= 1" }],
      hint: "Send k >= 1.",
      retryable: false,
    });
  });

  it("turns anything else into INTERNAL with a stable message, keeping the original only as the cause", () => {
    const original = new RangeError("Maximum call stack size exceeded");
    const converted = toDeliberateError(original);
    expect(converted.code).toBe("INTERNAL");
    expect(converted.message).not.toContain("stack");
    expect(converted.cause).toBe(original);
    const known = new DeliberateError({ code: "NOT_FOUND", message: "no" });
    expect(toDeliberateError(known)).toBe(known);
  });
});

describe("configuration helpers", () => {
  it("reads comma-separated lists without empty items", () => {
    expect(readList(undefined)).toEqual([]);
    expect(readList(" a, ,b ,,")).toEqual(["a", "b"]);
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z0-9@/._-]+$/), { maxLength: 6 }), (items) => {
        expect(readList(items.join(" , "))).toEqual(items);
      }),
    );
  });

  it("names the variables at fault", () => {
    const error = new ConfigError("PORT must be a number", ["PORT"]);
    expect(error.variables).toEqual(["PORT"]);
    expect(error).toBeInstanceOf(Error);
  });
});

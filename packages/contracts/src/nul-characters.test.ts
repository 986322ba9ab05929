import { DeliberateError } from "@deliberate/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { containsNulCharacter, nulCharacterIssues } from "./nul-characters.ts";
import { checkpointInputSchema } from "./reasoning/checkpoint.ts";
import { linearInputSchema } from "./reasoning/linear.ts";
import { parseInput } from "./validation.ts";

function refusal(run: () => unknown): DeliberateError {
  try {
    run();
  } catch (caught) {
    if (DeliberateError.isInstance(caught)) return caught;
    throw caught;
  }
  throw new Error("expected INVALID_INPUT, got a result");
}

describe("containsNulCharacter", () => {
  it("finds U+0000 in values, array items and keys at any depth, and nothing else", () => {
    expect(containsNulCharacter("a\u0000")).toBe(true);
    expect(containsNulCharacter({ a: [1, { b: "x\u0000" }] })).toBe(true);
    expect(containsNulCharacter({ a: { ["k\u0000"]: 1 } })).toBe(true);
    expect(containsNulCharacter({ a: ["\\u0000", "\uFFFD", 0, null, true] })).toBe(false);
    expect(containsNulCharacter(null)).toBe(false);
  });

  it("ends on an object that refers to itself", () => {
    const looped: Record<string, unknown> = { a: "x" };
    looped["self"] = looped;
    looped["again"] = [looped, looped];
    expect(containsNulCharacter(looped)).toBe(false);
    expect(nulCharacterIssues(looped)).toEqual([]);
  });

  it("agrees with a search of the value's JSON text, for any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const expected = JSON.stringify(value).includes("\\u0000");
        expect(containsNulCharacter(value)).toBe(expected);
        expect(nulCharacterIssues(value).length > 0).toBe(expected);
      }),
    );
  });
});

describe("nulCharacterIssues", () => {
  it("names each field holding U+0000 by its path; a key by the object holding it", () => {
    const issues = nulCharacterIssues({
      content: "a\u0000b",
      metadata: { note: "\u0000", ok: "fine", ["k\u0000"]: 1 },
      options: [{ name: "x" }, { name: "y\u0000" }],
    });
    expect(issues.map((issue) => issue.field)).toEqual(["content", "metadata.note", "metadata", "options.1.name"]);
    expect(issues.find((issue) => issue.field === "metadata")?.message).toContain('the key "k\\u0000"');
    expect(issues[0]?.message).toContain("NUL character (U+0000)");
  });

  it("names the input itself when it is the string", () => {
    expect(nulCharacterIssues("\u0000").map((issue) => issue.field)).toEqual(["(input)"]);
  });

  it("stops at the limit", () => {
    expect(
      nulCharacterIssues(
        Array.from({ length: 50 }, () => "\u0000"),
        3,
      ),
    ).toHaveLength(3);
  });
});

describe("parseInput refuses U+0000", () => {
  it("in a field the schema accepts, naming it", () => {
    const error = refusal(() => parseInput(linearInputSchema, { content: "a\u0000b" }, "reasoning_linear"));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues).toEqual([{ field: "content", message: expect.stringContaining("U+0000") }]);
    expect(error.message).toContain("reasoning_linear");
    expect(error.hint).toContain("nothing was written");
  });

  it("in a checkpoint name, beside the schema's own issues", () => {
    const error = refusal(() =>
      parseInput(
        checkpointInputSchema,
        { operation: "create", session_id: "", name: "n\u0000" },
        "reasoning_checkpoint",
      ),
    );
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["name", "session_id"]);
  });

  it("in nested values and keys of free-form objects", () => {
    const schema = z.object({ metadata: z.record(z.string(), z.unknown()) });
    expect(
      refusal(() => parseInput(schema, { metadata: { note: "x\u0000" } }, "t")).issues.map((issue) => issue.field),
    ).toEqual(["metadata.note"]);
    expect(
      refusal(() => parseInput(schema, { metadata: { deep: [{ ["k\u0000"]: true }] } }, "t")).issues.map(
        (issue) => issue.field,
      ),
    ).toEqual(["metadata.deep.0"]);
  });

  it("even in a field the schema strips", () => {
    const schema = z.object({ a: z.string() });
    expect(
      refusal(() => parseInput(schema, { a: "x", dropped: "\u0000" }, "t")).issues.map((issue) => issue.field),
    ).toEqual(["dropped"]);
  });

  it("but accepts U+FFFD and the six characters \\u0000", () => {
    expect(parseInput(linearInputSchema, { content: "\uFFFD \\u0000" }, "reasoning_linear").content).toBe(
      "\uFFFD \\u0000",
    );
  });
});

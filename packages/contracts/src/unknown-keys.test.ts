import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { looseInteger } from "./coerce.ts";
import { closestKey, knownKeysAt, unknownKeyMessage } from "./unknown-keys.ts";
import { parseInput } from "./validation.ts";

const camelWords = fc.array(fc.stringMatching(/^[a-z]{2,8}$/), { minLength: 1, maxLength: 4 });
const camel = (words: string[]) =>
  words.map((word, index) => (index === 0 ? word : `${word[0]?.toUpperCase()}${word.slice(1)}`)).join("");

describe("unknown keys", () => {
  it("a key in another case or separator style points to the accepted spelling", () => {
    fc.assert(
      fc.property(camelWords, fc.constantFrom("_", "-"), fc.boolean(), (words, separator, upper) => {
        const accepted = camel(words);
        const sent = words.join(separator);
        expect(closestKey(upper ? sent.toUpperCase() : sent, ["topic", accepted])).toBe(
          words.length === 1 && accepted === "topic" ? "topic" : accepted,
        );
      }),
    );
    expect(closestKey("max_iterations", ["maxIterations", "qualityThreshold"])).toBe("maxIterations");
    expect(closestKey("quality_threshold", ["maxIterations", "qualityThreshold"])).toBe("qualityThreshold");
    expect(closestKey("qualityTreshold", ["maxIterations", "qualityThreshold"])).toBe("qualityThreshold");
  });

  it("a key close to none is not given a suggestion, and the message lists what is accepted", () => {
    expect(closestKey("colour", ["maxIterations", "topic"])).toBeUndefined();
    expect(unknownKeyMessage("colour", ["maxIterations", "topic"])).toBe(
      "unknown field 'colour'; remove it (accepted here: maxIterations, topic)",
    );
    expect(unknownKeyMessage("x", [])).toBe("unknown field 'x'; remove it or check its spelling");
  });

  it("finds the keys of the object at a path through optional, default, preprocess, arrays and refinements", () => {
    const schema = z
      .strictObject({
        count: looseInteger().default(3),
        items: z.array(z.strictObject({ name: z.string(), systemPrompt: z.string() })).optional(),
        nested: z.preprocess((value) => value, z.strictObject({ inner: z.string() })),
      })
      .superRefine(() => undefined);
    expect(knownKeysAt(schema, [])).toEqual(["count", "items", "nested"]);
    expect(knownKeysAt(schema, ["items", 2])).toEqual(["name", "systemPrompt"]);
    expect(knownKeysAt(schema, ["nested"])).toEqual(["inner"]);
    expect(knownKeysAt(schema, ["count"])).toEqual([]);
  });

  it("parseInput names the unknown key and its right spelling, at any depth", () => {
    const schema = z.strictObject({
      maxIterations: z.number().optional(),
      agents: z.array(z.strictObject({ systemPrompt: z.string() })).optional(),
    });
    let issues: unknown;
    try {
      parseInput(
        schema,
        { max_iterations: 7, agents: [{ systemPrompt: "p" }, { system_prompt: "p", systemPrompt: "q" }] },
        "tool",
      );
    } catch (error) {
      issues = (error as { issues: unknown }).issues;
    }
    expect(issues).toEqual([
      { field: "agents.1.system_prompt", message: "unknown field 'system_prompt'; did you mean 'systemPrompt'?" },
      { field: "max_iterations", message: "unknown field 'max_iterations'; did you mean 'maxIterations'?" },
    ]);
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { commonPrefixLength, longestCommonPrefixWithAny } from "./fake-prompt-cache.ts";

describe("longestCommonPrefixWithAny", () => {
  it("finds the longest prefix a text shares with any earlier prompt, as comparing with each of them does", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "\u0000", "é", "\ud83d\ude00"), maxLength: 12 });
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), text, (earlier, prompt) => {
        const sorted = [...earlier].sort();
        const everyOne = Math.max(0, ...earlier.map((previous) => commonPrefixLength(previous, prompt)));
        expect(longestCommonPrefixWithAny(sorted, prompt)).toBe(everyOne);
      }),
    );
  });
});

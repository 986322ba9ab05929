import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { locateQuote } from "./quote-locator.ts";

const text = "We must  choose:\neither we ship on Friday, or the company “fails”. Everyone agrees — so it's true.";

describe("locateQuote", () => {
  it("finds an exact quote and reports its offsets in the original text", () => {
    const result = locateQuote(text, "either we ship on Friday");
    expect(result).toEqual({ found: true, match: { start: 17, end: 41, text: "either we ship on Friday" } });
  });

  it("tolerates case, whitespace runs, curly quotes, dashes and surrounding quotation marks", () => {
    const result = locateQuote(text, '"we MUST choose: either"');
    expect(result.found).toBe(true);
    if (!result.found) return;
    expect(text.slice(result.match.start, result.match.end)).toBe("We must  choose:\neither");
    expect(result.match.text).toBe("We must  choose:\neither");

    const curly = locateQuote(text, 'the company "fails". Everyone agrees - so it\'s true');
    expect(curly.found).toBe(true);
    if (curly.found) expect(curly.match.text).toBe("the company “fails”. Everyone agrees — so it's true");
  });

  it("matches fragments joined by an ellipsis in order, and only in order", () => {
    const result = locateQuote(text, "either we ship … the company");
    expect(result.found).toBe(true);
    if (!result.found) return;
    expect(result.match.text).toBe("either we ship … the company");
    expect(text.slice(result.match.start, result.match.end)).toBe("either we ship on Friday, or the company");

    const reversed = locateQuote(text, "the company ... either we ship");
    expect(reversed).toEqual({
      found: false,
      reason: '"either we ship" does not occur after the previous quoted fragment',
    });
  });

  it("rejects paraphrases and quotes too short to check", () => {
    expect(locateQuote(text, "either we ship on Saturday").found).toBe(false);
    expect(locateQuote(text, "we must decide").found).toBe(false);
    const short = locateQuote(text, "we");
    expect(short.found).toBe(false);
    if (!short.found) expect(short.reason).toMatch(/too short/);
  });

  it("finds every substring of a text (property)", () => {
    const alphabet = fc.constantFrom(..."ab cD.\n“”—'".split(""));
    fc.assert(
      fc.property(
        fc.array(alphabet, { minLength: 1, maxLength: 80 }),
        fc.nat(),
        fc.nat(),
        (characters, first, second) => {
          const source = characters.join("");
          const from = first % source.length;
          const to = from + 1 + (second % (source.length - from));
          const quote = source.slice(from, to);
          const nonSpace = quote.replace(/\s/g, "").replace(/^["'“”]+|["'“”]+$/g, "").length;
          fc.pre(nonSpace >= 6 && !/\.\.\./.test(quote));
          const result = locateQuote(source, quote);
          expect(result.found).toBe(true);
          if (result.found) {
            // The reported span says the same thing as the quote once presentation is normalised.
            expect(locateQuote(result.match.text, quote).found).toBe(true);
            expect(source.slice(result.match.start, result.match.end)).toBe(result.match.text);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

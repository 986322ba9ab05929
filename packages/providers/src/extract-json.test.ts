import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractJson } from "./extract-json.ts";

/** Any JSON value survives being written as plain JSON, fenced, or embedded in prose. */

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
const structuredValue = fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()));
/** Whether the whole text is itself one JSON value. */
const parsesWhole = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
/** Prose without brackets: models put sentences around their JSON, not half-JSON. */
const prose = fc.string().map((text) => text.replace(/[{}[\]`]/g, "").trim());

describe("extractJson", () => {
  it("reads any JSON value written plainly, in any indentation", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2, "\t"), (value, indent) => {
        expect(extractJson(JSON.stringify(value, null, indent))).toEqual({ ok: true, value: roundTrip(value) });
      }),
    );
  });

  it("reads an object or array inside a ```json fence surrounded by prose", () => {
    fc.assert(
      fc.property(structuredValue, prose, prose, fc.constantFrom("json", "JSON", ""), (value, before, after, tag) => {
        const text = `${before}\n\`\`\`${tag}\n${JSON.stringify(value, null, 2)}\n\`\`\`\n${after}`;
        expect(extractJson(text)).toEqual({ ok: true, value: roundTrip(value) });
      }),
    );
  });

  it("reads an object or array embedded in prose without a fence", () => {
    fc.assert(
      fc.property(structuredValue, prose, prose, (value, before, after) => {
        const text = `${before} ${JSON.stringify(value)} ${after}`;
        // Prose of one quote on each side makes the whole text a JSON string (e.g. `" [] "`), which is read as such.
        fc.pre(!parsesWhole(text));
        expect(extractJson(text)).toEqual({ ok: true, value: roundTrip(value) });
      }),
    );
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const result = extractJson(text);
        expect(typeof result.ok).toBe("boolean");
      }),
    );
  });

  it("explains why there is no JSON", () => {
    expect(extractJson("   ")).toEqual({ ok: false, problem: expect.stringContaining("empty") });
    expect(extractJson('{"steps": ["a",')).toEqual({ ok: false, problem: expect.stringContaining("not valid JSON") });
    expect(extractJson("I would rather not.")).toMatchObject({ ok: false });
  });

  it("reads a text that is itself one JSON string as that string", () => {
    expect(extractJson('" [] "')).toEqual({ ok: true, value: " [] " });
  });

  it("does not mistake braces inside strings for structure", () => {
    expect(extractJson('Answer: {"text": "a } and a { inside"} done')).toEqual({
      ok: true,
      value: { text: "a } and a { inside" },
    });
  });
});

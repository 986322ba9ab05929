import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linePrefixer } from "../src/line-prefixer.ts";

describe("linePrefixer", () => {
  it("prefixes every line once, however the text arrives in chunks, and ends a last partial line on flush", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("a", "b", "\n", "é", " ") }), { maxLength: 12 }),
        (chunks) => {
          let written = "";
          const prefixer = linePrefixer("p: ", (text) => {
            written += text;
          });
          for (const chunk of chunks) prefixer.push(chunk);
          prefixer.flush();
          const text = chunks.join("");
          const lines = text === "" ? [] : (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
          expect(written).toBe(lines.map((line) => `p: ${line}\n`).join(""));
        },
      ),
    );
  });
});

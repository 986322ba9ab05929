import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mermaidLabel } from "./session-export.ts";

/** The label as first written: always flatten, cut, escape (mermaidLabel skips the steps that would change nothing). */
function reference(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const short = flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
  return short.replace(/"/g, "#quot;").replace(/[<>]/g, (character) => (character === "<" ? "#lt;" : "#gt;"));
}

describe("mermaidLabel", () => {
  it("flattens whitespace, cuts at 80 characters and escapes quotes and angle brackets", () => {
    expect(mermaidLabel('  a  "b"\n\t<c>  ')).toBe("a #quot;b#quot; #lt;c#gt;");
    expect(mermaidLabel("x".repeat(100))).toBe(`${"x".repeat(79)}…`);
    expect(mermaidLabel("plain words")).toBe("plain words");
  });

  it("gives the same label as always flattening and escaping", () => {
    const pieces = fc.constantFrom(" ", "  ", "\n", "\t", "\u00a0", '"', "<", ">", "a", "word", "é");
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 60 }), (parts) => {
        const text = parts.join("");
        expect(mermaidLabel(text)).toBe(reference(text));
      }),
    );
  });
});

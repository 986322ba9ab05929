import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ancestry, forkPoint, interleave, wordOverlap } from "./timeline-analysis.ts";

const links = new Map(
  [
    { id: "main", parent_branch_id: null },
    { id: "a", parent_branch_id: "main" },
    { id: "a1", parent_branch_id: "a" },
    { id: "a2", parent_branch_id: "a" },
    { id: "b", parent_branch_id: "main" },
  ].map((link) => [link.id, link]),
);

describe("timeline structure", () => {
  it("walks ancestry from the root", () => {
    expect(ancestry("a1", links)).toEqual(["main", "a", "a1"]);
    expect(ancestry("main", links)).toEqual(["main"]);
  });

  it("finds the fork point and the hops from it", () => {
    expect(forkPoint("a1", "a2", links)).toEqual({ fork_branch_id: "a", steps_since_fork: [1, 1] });
    expect(forkPoint("a1", "b", links)).toEqual({ fork_branch_id: "main", steps_since_fork: [2, 1] });
    expect(forkPoint("a", "a2", links)).toEqual({ fork_branch_id: "a", steps_since_fork: [0, 1] });
    expect(forkPoint("a", "missing", links)).toBeUndefined();
  });
});

describe("wordOverlap", () => {
  it("is the Jaccard index of the word sets, case-insensitive", () => {
    // {the, cat, sat} vs {the, cat, ran}: 2 shared of 4 distinct.
    expect(wordOverlap("The cat sat.", "the CAT ran")).toBe(0.5);
    expect(wordOverlap("same words", "words same")).toBe(1);
    expect(wordOverlap("alpha", "beta")).toBe(0);
    expect(wordOverlap("", "")).toBe(1);
  });

  it("is symmetric and within [0, 1]", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        const forward = wordOverlap(a, b);
        expect(forward).toBe(wordOverlap(b, a));
        expect(forward).toBeGreaterThanOrEqual(0);
        expect(forward).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe("interleave", () => {
  it("alternates paragraphs, target first, dropping repeats", () => {
    expect(interleave("T1\n\nShared\n\nT3", "S1\n\nshared")).toBe("T1\n\nS1\n\nShared\n\nT3");
  });

  it("falls back to lines, then sentences", () => {
    expect(interleave("t1\nt2", "s1")).toBe("t1\ns1\nt2");
    expect(interleave("Rates rise. Demand falls.", "Rates hold! Demand falls.")).toBe(
      "Rates rise. Rates hold! Demand falls.",
    );
  });

  it("keeps every distinct paragraph of both branches exactly once, each branch in its own order when they share none", () => {
    const segment = fc.stringMatching(/^[a-z]{1,6}$/);
    fc.assert(
      fc.property(
        fc.uniqueArray(segment, { minLength: 2, maxLength: 6 }),
        fc.uniqueArray(segment, { maxLength: 6 }),
        (target, source) => {
          // Two or more target paragraphs make paragraphs the unit.
          const merged = interleave(target.join("\n\n"), source.join("\n\n")).split("\n\n");
          expect(merged).toHaveLength(new Set([...target, ...source]).size);
          expect(new Set(merged)).toEqual(new Set([...target, ...source]));
          if (target.every((part) => !source.includes(part))) {
            expect(merged.filter((part) => target.includes(part))).toEqual(target);
            expect(merged.filter((part) => source.includes(part))).toEqual(source);
          }
        },
      ),
    );
  });
});

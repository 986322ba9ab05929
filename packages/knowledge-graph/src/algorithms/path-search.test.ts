import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validatePath } from "./path-search.ts";
import type { Fact } from "./triples.ts";

const nodes = ["a", "b", "c", "d", "e", "f"];
const fact = fc.record({
  subject: fc.constantFrom(...nodes),
  predicate: fc.constantFrom("p", "q"),
  object: fc.constantFrom(...nodes),
});

/** Every walk of exactly `length` relations from `from`, by brute force. */
function walks(facts: readonly Fact[], from: string, length: number): Fact[][] {
  if (length === 0) return [[]];
  const result: Fact[][] = [];
  for (const first of facts.filter((item) => item.subject === from)) {
    for (const rest of walks(facts, first.object, length - 1)) result.push([first, ...rest]);
  }
  return result;
}

function isChain(path: readonly Fact[], from: string, to: string, facts: readonly Fact[]): boolean {
  let at = from;
  for (const step of path) {
    if (!facts.includes(step) || step.subject !== at) return false;
    at = step.object;
  }
  return at === to;
}

describe("path validation", () => {
  it("returns a real shortest chain, or none exists within the bound", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 14 }),
        fc.constantFrom(...nodes),
        fc.constantFrom(...nodes),
        (facts, from, to) => {
          fc.pre(from !== to);
          const result = validatePath(facts, { from, to, maxDepth: 4 });
          const shortest = [1, 2, 3, 4].find((length) =>
            walks(facts, from, length).some((walk) => walk.at(-1)?.object === to),
          );
          expect(result.valid).toBe(shortest !== undefined);
          if (result.valid) {
            expect(isChain(result.path, from, to, facts)).toBe(true);
            expect(result.path).toHaveLength(shortest as number);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("follows a given sequence of relation types, backwards with ^", () => {
    fc.assert(
      fc.property(
        fc.array(fact, { maxLength: 14 }),
        fc.constantFrom(...nodes),
        fc.constantFrom(...nodes),
        fc.array(fc.constantFrom("p", "q", "^p", "^q"), { minLength: 1, maxLength: 3 }),
        (facts, from, to, predicates) => {
          const result = validatePath(facts, { from, to, predicates });
          // Brute force over the oriented walks.
          const reach = (at: string, index: number): boolean => {
            if (index === predicates.length) return at === to;
            const wanted = predicates[index] as string;
            const backwards = wanted.startsWith("^");
            const name = backwards ? wanted.slice(1) : wanted;
            return facts.some(
              (item) =>
                item.predicate === name &&
                (backwards
                  ? item.object === at && reach(item.subject, index + 1)
                  : item.subject === at && reach(item.object, index + 1)),
            );
          };
          expect(result.valid).toBe(reach(from, 0));
          if (result.valid) {
            expect(result.path).toHaveLength(predicates.length);
            let at = from;
            result.path.forEach((step, index) => {
              const wanted = predicates[index] as string;
              expect(step.predicate).toBe(wanted.replace("^", ""));
              if (wanted.startsWith("^")) {
                expect(step.object).toBe(at);
                at = step.subject;
              } else {
                expect(step.subject).toBe(at);
                at = step.object;
              }
            });
            expect(at).toBe(to);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("explains a missing path", () => {
    const result = validatePath([{ subject: "a", predicate: "p", object: "b" }], {
      from: "b",
      to: "a",
      predicates: ["p"],
    });
    expect(result).toEqual({ valid: false, path: [], reason: "no walk from b to a follows p in the graph" });
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ambiguityBetween, type EntityRecord, findAmbiguousPairs, mergeByName } from "./entity-merge.ts";
import { negatePredicate, normalizeEntityName, normalizePredicate } from "./names.ts";

const nameParts = fc.constantFrom(
  "Acme",
  "acme",
  "ACME",
  "Corp",
  "Café",
  "cafe",
  "the",
  "A",
  "Widget",
  "widgets",
  "Ltd.",
  "  ",
  "-",
  "!",
);
const name = fc.array(nameParts, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(" "));
const record = fc.record({
  name,
  type: fc.constantFrom("organization", "product", "concept", ""),
  observations: fc.array(fc.constantFrom("founded 1990", "Founded 1990.", "makes widgets", "based in Lyon"), {
    maxLength: 3,
  }),
});

function shuffle<T>(items: readonly T[], seed: number): T[] {
  const copy = [...items];
  let state = seed >>> 0;
  for (let index = copy.length - 1; index > 0; index -= 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    const other = state % (index + 1);
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

describe("names", () => {
  it("normalise idempotently, folding case, accents, punctuation and leading articles", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        expect(normalizeEntityName(normalizeEntityName(value))).toBe(normalizeEntityName(value));
      }),
    );
    expect(normalizeEntityName("  The  Café-Royal!! ")).toBe("cafe royal");
    expect(normalizeEntityName("A")).toBe("a");
    expect(normalizeEntityName("???")).toBe("???");
  });

  it("make predicates snake_case with not_ as negation", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const predicate = normalizePredicate(value);
        expect(predicate).toMatch(/^[a-z0-9]+(?:_[a-z0-9]+)*$/);
        expect(normalizePredicate(predicate)).toBe(predicate);
        expect(negatePredicate(negatePredicate(predicate))).toBe(predicate);
      }),
    );
    expect(normalizePredicate("isPartOf")).toBe("is_part_of");
    expect(normalizePredicate("Located In")).toBe("located_in");
  });
});

describe("deterministic entity merge", () => {
  it("lands every record on the entity of its normalised name, whatever the order", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 12 }), fc.integer(), (records, seed) => {
        const merged = mergeByName(records);
        const reordered = mergeByName(shuffle(records, seed));
        expect(new Set(merged.keys())).toEqual(new Set(records.map((item) => normalizeEntityName(item.name))));
        expect(new Set(reordered.keys())).toEqual(new Set(merged.keys()));
        for (const [key, entity] of merged) {
          const other = reordered.get(key);
          expect(new Set(entity.observations.map(normalizeEntityName))).toEqual(
            new Set(other?.observations.map(normalizeEntityName)),
          );
        }
      }),
    );
  });

  it("is idempotent: merging the same records again changes nothing", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 10 }), (records) => {
        const once = mergeByName(records);
        expect(mergeByName(records, once)).toEqual(once);
      }),
    );
  });

  it("keeps each observation once and lets a specific type replace a generic one", () => {
    const records: EntityRecord[] = [
      { name: "Acme Corp", type: "concept", observations: ["makes widgets"] },
      { name: "ACME corp.", type: "organization", observations: ["Makes widgets.", "based in Lyon"] },
    ];
    const merged = mergeByName(records);
    expect([...merged.values()]).toEqual([
      { key: "acme corp", name: "Acme Corp", type: "organization", observations: ["makes widgets", "based in Lyon"] },
    ]);
  });
});

describe("ambiguous pairs", () => {
  it("flags plural, spelling, acronym and containment, and nothing for unrelated names", () => {
    expect(ambiguityBetween("widget", "widgets")?.reason).toBe("plural");
    expect(ambiguityBetween("fibonacci", "fibonaci")?.reason).toBe("spelling");
    expect(ambiguityBetween("who", "world health organization")?.reason).toBe("acronym");
    expect(ambiguityBetween("acme", "acme corp")?.reason).toBe("contained");
    expect(ambiguityBetween("acme", "lyon")).toBeNull();
  });

  it("are bounded, order-independent, and never merge a stored entity into a fresh one", () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 10 }),
        fc.array(record, { maxLength: 10 }),
        fc.integer({ min: 0, max: 5 }),
        fc.integer(),
        (stored, fresh, limit, seed) => {
          const storedEntities = [...mergeByName(stored).values()];
          const storedKeys = new Set(storedEntities.map((entity) => entity.key));
          const freshEntities = [...mergeByName(fresh).values()].filter((entity) => !storedKeys.has(entity.key));
          const pairs = findAmbiguousPairs(freshEntities, storedEntities, limit);
          expect(pairs.length).toBeLessThanOrEqual(limit);
          for (const pair of pairs) expect(storedKeys.has(pair.merge)).toBe(false);
          expect(findAmbiguousPairs(shuffle(freshEntities, seed), shuffle(storedEntities, seed + 1), limit)).toEqual(
            pairs,
          );
        },
      ),
    );
  });
});

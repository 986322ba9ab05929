import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requestDigest } from "./request-digest.ts";

/** The same value with every object's keys in reverse order. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([key, item]) => [key, reordered(item)]),
    );
  return value;
}

/** The value as JSON with sorted keys (an independent statement of "the same request"). */
function sortedJson(value: unknown): string {
  const sort = (item: unknown): unknown =>
    Array.isArray(item)
      ? item.map(sort)
      : item !== null && typeof item === "object"
        ? Object.fromEntries(
            Object.entries(item)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([key, inner]) => [key, sort(inner)]),
          )
        : item;
  return JSON.stringify(sort(value));
}

describe("requestDigest", () => {
  it("is the same whatever the key order, at any depth", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(requestDigest(reordered(value))).toBe(requestDigest(value));
      }),
    );
  });

  it("differs when a value differs, and tells arrays' order and types apart", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.jsonValue(),
        fc.jsonValue(),
        (base, key, a, b) => {
          fc.pre(sortedJson(a) !== sortedJson(b));
          expect(requestDigest({ ...base, [key]: a })).not.toBe(requestDigest({ ...base, [key]: b }));
        },
      ),
    );
    expect(requestDigest([1, 2])).not.toBe(requestDigest([2, 1]));
    expect(requestDigest({ a: "1" })).not.toBe(requestDigest({ a: 1 }));
    // An absent field and one set to undefined are the same request (JSON drops it).
    expect(requestDigest({ a: 1, b: undefined })).toBe(requestDigest({ a: 1 }));
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepthField, jsonDepthViolation, maxJsonDepth } from "./json-depth.ts";

function nested(depth: number, key = "a"): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? { [key]: value } : [value];
  return value;
}

/** Depth by recursion, for comparison on small values. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe("jsonDepthViolation", () => {
  it("agrees with a recursive depth count on any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), (value, limit) => {
        const violation = jsonDepthViolation(value, limit);
        expect(violation === undefined).toBe(depthOf(value) <= limit);
      }),
    );
  });

  it("names the path to the first container past the limit", () => {
    expect(jsonDepthViolation({ ok: [1, 2], metadata: { a: { b: [[1]] } } }, 3)).toEqual({
      path: ["metadata", "a", "b"],
      limit: 3,
    });
    expect(jsonDepthViolation([[[]]], 2)).toEqual({ path: [0, 0], limit: 2 });
    expect(jsonDepthViolation({ a: 1 }, 0)).toEqual({ path: [], limit: 0 });
  });

  it("handles values nested far deeper than the stack allows, quickly and without recursion", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`) as unknown;
    const violation = jsonDepthViolation({ metadata: deep });
    expect(violation?.limit).toBe(maxJsonDepth);
    expect(violation?.path).toHaveLength(maxJsonDepth);
    expect(jsonDepthField(violation as NonNullable<typeof violation>)).toBe("metadata.0.0.0.0.0.0.0");
    expect(jsonDepthViolation(nested(maxJsonDepth))).toBeUndefined();
    expect(jsonDepthViolation(nested(maxJsonDepth + 1))).toBeDefined();
  });
});

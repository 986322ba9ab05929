import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import { defaultExplorationConstant, selectUcb1Child, ucb1 } from "./ucb1.ts";

describe("ucb1", () => {
  it("computes Q/N + c·sqrt(ln N_parent / N)", () => {
    // 3/5 + √2·sqrt(ln 20 / 5) = 0.6 + 1.41421·0.77405 = 1.694666
    expect(ucb1({ total_value: 3, visits: 5, parent_visits: 20 })).toBeCloseTo(1.6946656610223947, 14);
    expect(ucb1({ total_value: 2, visits: 4, parent_visits: 10, exploration_constant: 1 })).toBeCloseTo(
      1.2587135646925733,
      14,
    );
    expect(ucb1({ total_value: 2, visits: 4, parent_visits: 10, exploration_constant: 0 })).toBe(0.5);
    expect(defaultExplorationConstant).toBe(Math.SQRT2);
  });

  it("scores an unvisited child +Infinity", () => {
    expect(ucb1({ total_value: 0, visits: 0, parent_visits: 0 })).toBe(Infinity);
  });

  it("rejects bad input naming the field", () => {
    expectInvalid(() => ucb1({ total_value: Number.NaN, visits: 1, parent_visits: 1 }), "total_value");
    expectInvalid(() => ucb1({ total_value: 1, visits: -1, parent_visits: 1 }), "visits");
    expectInvalid(() => ucb1({ total_value: 1, visits: 1.5, parent_visits: 2 }), "visits");
    expectInvalid(() => ucb1({ total_value: 1, visits: 3, parent_visits: 2 }), "parent_visits");
    expectInvalid(
      () => ucb1({ total_value: 1, visits: 1, parent_visits: 2, exploration_constant: -1 }),
      "exploration_constant",
    );
  });
});

describe("selectUcb1Child", () => {
  it("picks the highest score, ties to the earliest child", () => {
    const children = [
      { total_value: 1, visits: 2 },
      { total_value: 3, visits: 4 },
      { total_value: 3, visits: 4 },
    ];
    // c = 0: means 0.5, 0.75, 0.75 -> the first 0.75.
    expect(selectUcb1Child({ children, parent_visits: 10, exploration_constant: 0 })).toEqual({
      index: 1,
      score: 0.75,
    });
    // c = √2: the less-visited first child gets the larger bonus (0.5 + 1.517 > 0.75 + 1.073).
    expect(selectUcb1Child({ children, parent_visits: 10 }).index).toBe(0);
  });

  it("prefers the first unvisited child, whatever the others score", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            total_value: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
            visits: fc.integer({ min: 0, max: 50 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.double({ min: 0, max: 10, noNaN: true }),
        (children, constant) => {
          fc.pre(children.some((child) => child.visits === 0));
          const parentVisits = children.reduce((sum, child) => sum + child.visits, 0) + 1;
          const choice = selectUcb1Child({ children, parent_visits: parentVisits, exploration_constant: constant });
          expect(choice.index).toBe(children.findIndex((child) => child.visits === 0));
          expect(choice.score).toBe(Infinity);
        },
      ),
    );
  });

  it("rejects bad input naming the field", () => {
    expectInvalid(() => selectUcb1Child({ children: [], parent_visits: 1 }), "children");
    expectInvalid(
      () => selectUcb1Child({ children: [{ total_value: 1, visits: 5 }], parent_visits: 2 }),
      "children.0.visits",
    );
    expectInvalid(
      () => selectUcb1Child({ children: [{ total_value: Infinity, visits: 1 }], parent_visits: 2 }),
      "children.0.total_value",
    );
    expectInvalid(
      () => selectUcb1Child({ children: [{ total_value: 1, visits: 1 }], parent_visits: -2 }),
      "parent_visits",
    );
    expectInvalid(
      () =>
        selectUcb1Child({
          children: [{ total_value: 1, visits: 1 }],
          parent_visits: 2,
          exploration_constant: Number.NaN,
        }),
      "exploration_constant",
    );
  });
});

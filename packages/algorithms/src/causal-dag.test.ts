import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import {
  type CausalModel,
  causalTopologicalOrder,
  enumerateCausalPaths,
  findCausalCycle,
  validateCausalModel,
} from "./causal-dag.ts";

const link = (cause: string, effect: string, strength = 1) => ({ cause, effect, strength });

/** Brute force: a graph is acyclic iff some ordering of its variables puts every cause before its effect. */
function hasCycleBruteForce(model: CausalModel): boolean {
  const permutations = (items: string[]): string[][] =>
    items.length <= 1
      ? [items]
      : items.flatMap((item, index) =>
          permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
        );
  return !permutations([...model.variables]).some((order) =>
    model.relationships.every((relationship) => order.indexOf(relationship.cause) < order.indexOf(relationship.effect)),
  );
}

/** Random simple directed graphs (no self-loops, no duplicate edges) on 2 to 6 variables. */
const randomGraph = fc.integer({ min: 2, max: 6 }).chain((size) =>
  fc
    .uniqueArray(
      // to = from + 1 + offset (mod size) is never from itself.
      fc
        .tuple(fc.integer({ min: 0, max: size - 1 }), fc.integer({ min: 0, max: size - 2 }))
        .map(([from, offset]) => [from, (from + 1 + offset) % size] as const),
      { selector: ([from, to]) => `${from}>${to}`, maxLength: size * 2 },
    )
    .map(
      (edges): CausalModel => ({
        variables: Array.from({ length: size }, (_, index) => `v${index}`),
        relationships: edges.map(([from, to]) => link(`v${from}`, `v${to}`)),
      }),
    ),
);

describe("causal DAG", () => {
  it("orders variables topologically, earliest input first among ready ones", () => {
    expect(causalTopologicalOrder({ variables: ["C", "B", "A"], relationships: [] })).toEqual(["C", "B", "A"]);
    expect(causalTopologicalOrder({ variables: ["C", "B", "A"], relationships: [link("A", "C")] })).toEqual([
      "B",
      "A",
      "C",
    ]);
    expect(
      causalTopologicalOrder({
        variables: ["rain", "sprinkler", "wet", "slippery"],
        relationships: [
          link("wet", "slippery"),
          link("rain", "wet"),
          link("sprinkler", "wet"),
          link("rain", "sprinkler"),
        ],
      }),
    ).toEqual(["rain", "sprinkler", "wet", "slippery"]);
  });

  it("names the cycle", () => {
    const model = {
      variables: ["A", "B", "C", "D"],
      relationships: [link("A", "B"), link("B", "C"), link("C", "A"), link("C", "D")],
    };
    expect(findCausalCycle(model)).toEqual(["A", "B", "C", "A"]);
    const error = expectInvalid(() => validateCausalModel(model), "causal_model.relationships");
    expect(error.message).toContain("A -> B -> C -> A");
    expect(findCausalCycle({ variables: ["A", "B"], relationships: [link("A", "B")] })).toBeNull();
  });

  it("agrees with a brute-force cycle check and returns a real cycle", () => {
    fc.assert(
      fc.property(randomGraph, (model) => {
        const cycle = findCausalCycle(model);
        expect(cycle !== null).toBe(hasCycleBruteForce(model));
        if (cycle === null) {
          const order = causalTopologicalOrder(model);
          for (const relationship of model.relationships)
            expect(order.indexOf(relationship.cause)).toBeLessThan(order.indexOf(relationship.effect));
          return;
        }
        expect(cycle[0]).toBe(cycle[cycle.length - 1]);
        cycle
          .slice(1)
          .forEach((effect, index) =>
            expect(
              model.relationships.some(
                (relationship) => relationship.cause === cycle[index] && relationship.effect === effect,
              ),
            ).toBe(true),
          );
      }),
      { numRuns: 300 },
    );
  });

  it("enumerates paths depth-first in relationship order, with a cap", () => {
    const graph = validateCausalModel({
      variables: ["A", "B", "C"],
      relationships: [link("A", "B", 2), link("B", "C", 0.5), link("A", "C", 3)],
    });
    expect(enumerateCausalPaths(graph, { from: 0, maxPaths: 10 })).toEqual({
      paths: [
        { variables: ["A", "B"], product: 2 },
        { variables: ["A", "B", "C"], product: 1 },
        { variables: ["A", "C"], product: 3 },
      ],
      truncated: false,
    });
    expect(
      enumerateCausalPaths(graph, { from: 0, to: 2, maxPaths: 10 }).paths.map((path) => path.variables.join("")),
    ).toEqual(["ABC", "AC"]);
    expect(enumerateCausalPaths(graph, { from: 0, maxPaths: 2 })).toMatchObject({
      truncated: true,
      paths: [{ variables: ["A", "B"] }, { variables: ["A", "B", "C"] }],
    });
  });

  it("stays linear in size on a long chain of diamonds", () => {
    // 2^30 paths from start to end: only the cap keeps enumeration bounded.
    const variables = ["n0"];
    const relationships = [];
    for (let index = 0; index < 30; index += 1) {
      variables.push(`l${index}`, `r${index}`, `n${index + 1}`);
      relationships.push(
        link(`n${index}`, `l${index}`),
        link(`n${index}`, `r${index}`),
        link(`l${index}`, `n${index + 1}`),
        link(`r${index}`, `n${index + 1}`),
      );
    }
    const graph = validateCausalModel({ variables, relationships });
    const result = enumerateCausalPaths(graph, { from: 0, to: graph.indexOf.get("n30") as number, maxPaths: 100 });
    expect(result.truncated).toBe(true);
    expect(result.paths).toHaveLength(100);
  });

  it("rejects structural problems naming the field", () => {
    expectInvalid(() => validateCausalModel(null as unknown as CausalModel), "causal_model");
    expectInvalid(() => validateCausalModel({ variables: [], relationships: [] }), "causal_model.variables");
    expectInvalid(() => validateCausalModel({ variables: ["A", "A"], relationships: [] }), "causal_model.variables.1");
    expectInvalid(
      () => validateCausalModel({ variables: ["A"], relationships: [link("A", "Z")] }),
      "causal_model.relationships.0.effect",
    );
    expectInvalid(
      () => validateCausalModel({ variables: ["A"], relationships: [link("Z", "A")] }),
      "causal_model.relationships.0.cause",
    );
    expectInvalid(
      () => validateCausalModel({ variables: ["A"], relationships: [link("A", "A")] }),
      "causal_model.relationships.0",
    );
    expectInvalid(
      () => validateCausalModel({ variables: ["A", "B"], relationships: [link("A", "B"), link("A", "B", 2)] }),
      "causal_model.relationships.1",
    );
    expectInvalid(
      () => validateCausalModel({ variables: ["A", "B"], relationships: [link("A", "B", Number.NaN)] }),
      "causal_model.relationships.0.strength",
    );
    expectInvalid(
      () => validateCausalModel({ variables: ["A"], relationships: "none" as unknown as [] }),
      "causal_model.relationships",
    );
    expectInvalid(
      () => validateCausalModel({ variables: ["A"], relationships: [link("A", "Z")] }, "model"),
      "model.relationships.0.effect",
    );
  });
});

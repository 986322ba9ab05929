import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import { type PrunableNode, pruneGraph } from "./graph-prune.ts";

/** Random trees: node i > 0 hangs under a random earlier node; scores random or missing. */
const randomTree = fc
  .array(
    fc.record({ parentSeed: fc.nat(), score: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }) }),
    { minLength: 1, maxLength: 60 },
  )
  .map((rows) =>
    rows.map(
      (row, index): PrunableNode => ({
        id: `n${index}`,
        score: row.score,
        parent_id: index === 0 ? null : `n${row.parentSeed % index}`,
      }),
    ),
  );

describe("pruneGraph", () => {
  it("removes low scorers and the subtrees they orphan, never the root (hand-worked)", () => {
    const nodes: PrunableNode[] = [
      { id: "root", score: 0.1 },
      { id: "a", score: 0.8, parent_id: "root" },
      { id: "b", score: 0.2, parent_id: "root" },
      { id: "b1", score: 0.9, parent_id: "b" },
      { id: "b2", parent_id: "b" },
      { id: "a1", score: 0.25, parent_id: "a" },
      { id: "merged", score: 0.9, parent_ids: ["a", "b"] }, // still attached through a
      { id: "merged-below-b", score: 0.9, parent_ids: ["b1", "b2"] }, // every parent removed
      { id: "edge", score: 0.3, parent_id: "a" }, // equal to the threshold: kept
    ];
    expect(pruneGraph({ nodes, threshold: 0.3 })).toEqual({
      removed_ids: ["b", "b1", "b2", "a1", "merged-below-b"],
      kept_ids: ["root", "a", "merged", "edge"],
      below_threshold_ids: ["b", "a1"],
      orphaned_ids: ["b1", "b2", "merged-below-b"],
      pruned_count: 5,
    });
  });

  it("accepts nodes in any order and keeps unscored nodes", () => {
    const result = pruneGraph({
      nodes: [
        { id: "leaf", score: 0.9, parent_id: "mid" },
        { id: "mid", parent_id: "root" },
        { id: "root", parent_id: null },
      ],
      threshold: 0.5,
    });
    expect(result.removed_ids).toEqual([]);
  });

  it("never removes the root and always removes whole subtrees", () => {
    fc.assert(
      fc.property(randomTree, fc.double({ min: 0, max: 1, noNaN: true }), (nodes, threshold) => {
        const result = pruneGraph({ nodes, threshold });
        const removed = new Set(result.removed_ids);
        expect(removed.has("n0")).toBe(false);
        const byId = new Map(nodes.map((node) => [node.id, node]));
        for (const node of nodes) {
          // Removed exactly when some node on its path to the root (excluding the root) is below the threshold.
          let expected = false;
          for (
            let current: PrunableNode | undefined = node;
            current?.parent_id;
            current = byId.get(current.parent_id)
          ) {
            if (typeof current.score === "number" && current.score < threshold) expected = true;
          }
          expect(removed.has(node.id)).toBe(expected);
          if (node.parent_id && removed.has(node.parent_id)) expect(removed.has(node.id)).toBe(true);
        }
        expect(result.pruned_count).toBe(result.removed_ids.length);
        expect(result.removed_ids.length + result.kept_ids.length).toBe(nodes.length);
      }),
    );
  });

  it("handles 100,000 nodes, including a 50,000-deep chain", () => {
    const nodes: PrunableNode[] = [{ id: "n0", score: 1 }];
    for (let index = 1; index < 50_000; index += 1)
      nodes.push({ id: `n${index}`, score: index === 25_000 ? 0 : 1, parent_id: `n${index - 1}` });
    for (let index = 50_000; index < 100_000; index += 1)
      nodes.push({ id: `n${index}`, score: index % 10 === 0 ? 0.1 : 0.9, parent_id: `n${index % 1000}` });
    const result = pruneGraph({ nodes, threshold: 0.5 });
    expect(result.removed_ids).toContain("n49999");
    expect(result.kept_ids).toContain("n24999");
    expect(result.below_threshold_ids).toContain("n25000");
  });

  it("rejects bad input naming the field", () => {
    const root = { id: "r" };
    expectInvalid(() => pruneGraph({ nodes: [root], threshold: Number.NaN }), "threshold");
    expectInvalid(() => pruneGraph({ nodes: "x" as unknown as PrunableNode[], threshold: 0.3 }), "nodes");
    expectInvalid(() => pruneGraph({ nodes: [root, { id: "r" }], threshold: 0.3 }), "nodes.1.id");
    expectInvalid(() => pruneGraph({ nodes: [root, { id: "" }], threshold: 0.3 }), "nodes.1.id");
    expectInvalid(
      () => pruneGraph({ nodes: [root, { id: "a", parent_id: "zz" }], threshold: 0.3 }),
      "nodes.1.parent_id",
    );
    expectInvalid(
      () => pruneGraph({ nodes: [root, { id: "a", parent_ids: ["r", "a"] }], threshold: 0.3 }),
      "nodes.1.parent_ids.1",
    );
    expectInvalid(
      () => pruneGraph({ nodes: [root, { id: "a", parent_ids: "r" as unknown as string[] }], threshold: 0.3 }),
      "nodes.1.parent_ids",
    );
    expectInvalid(
      () => pruneGraph({ nodes: [root, { id: "a", score: Infinity, parent_id: "r" }], threshold: 0.3 }),
      "nodes.1.score",
    );
    const cycle = expectInvalid(
      () => pruneGraph({ nodes: [root, { id: "a", parent_id: "b" }, { id: "b", parent_id: "a" }], threshold: 0.3 }),
      "nodes",
    );
    expect(cycle.message).toContain('"a"');
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import {
  backpropagateMcts,
  bestMctsPath,
  createMctsTree,
  expandMctsNode,
  type MctsNodeRecord,
  type MctsTree,
  mctsTreeFromNodes,
  selectMctsLeaf,
} from "./mcts-tree.ts";

function threeChildren(): MctsTree {
  const tree = createMctsTree({ root_id: "root", content: "problem" });
  expandMctsNode(tree, { parent_id: "root", children: ["a", "b", "c"].map((id) => ({ id, content: `idea ${id}` })) });
  return tree;
}

describe("MCTS tree", () => {
  it("visits unvisited children first in order, then follows UCB1", () => {
    const tree = threeChildren();
    const rewards: Record<string, number> = { a: 1, b: 0, c: 0.5 };
    for (const expected of ["a", "b", "c"]) {
      const selection = selectMctsLeaf(tree);
      expect(selection.path).toEqual(["root", expected]);
      backpropagateMcts(tree, { node_id: selection.node_id, value: rewards[expected] as number });
    }
    expect(tree.nodes.root).toMatchObject({ visits: 3, total_value: 1.5 });
    // All visited once: UCB1 = mean + √2·sqrt(ln 3) for each, so the best mean (a) wins.
    expect(selectMctsLeaf(tree).path).toEqual(["root", "a"]);
    // With no exploration and equal means, the earliest child wins.
    backpropagateMcts(tree, { node_id: "c", value: 1.5 }); // c: 2 visits, mean 1
    expect(selectMctsLeaf(tree, { exploration_constant: 0 }).node_id).toBe("a");
  });

  it("descends through visited levels to a leaf", () => {
    const tree = threeChildren();
    for (const id of ["a", "b", "c"]) backpropagateMcts(tree, { node_id: id, value: id === "b" ? 1 : 0 });
    expandMctsNode(tree, { parent_id: "b", children: [{ id: "b1", content: "deeper" }] });
    expect(tree.nodes.b1?.depth).toBe(2);
    expect(selectMctsLeaf(tree).path).toEqual(["root", "b", "b1"]);
    const updated = backpropagateMcts(tree, { node_id: "b1", value: 1 });
    expect(updated.map((node) => node.id)).toEqual(["b1", "b", "root"]);
    expect(tree.nodes.b).toMatchObject({ visits: 2, total_value: 2 });
  });

  it("returns the best path by visits, then mean value, then order", () => {
    const tree = threeChildren();
    backpropagateMcts(tree, { node_id: "a", value: 0.2 });
    backpropagateMcts(tree, { node_id: "b", value: 0.9 });
    backpropagateMcts(tree, { node_id: "b", value: 0.9 });
    backpropagateMcts(tree, { node_id: "c", value: 1 });
    backpropagateMcts(tree, { node_id: "c", value: 0.1 });
    // b and c both have 2 visits; b's mean 0.9 beats c's 0.55.
    const path = bestMctsPath(tree);
    expect(path.map((step) => step.node_id)).toEqual(["root", "b"]);
    expect(path[0]?.ucb_score).toBeNull();
    expect(path[1]).toMatchObject({ content: "idea b", visits: 2, mean_value: 0.9, depth: 1 });
    expect(path[1]?.ucb_score).toBeCloseTo(0.9 + Math.SQRT2 * Math.sqrt(Math.log(5) / 2), 12);
    // Exact tie (visits and mean): the earliest child.
    const tie = threeChildren();
    backpropagateMcts(tie, { node_id: "c", value: 1 });
    backpropagateMcts(tie, { node_id: "b", value: 1 });
    expect(bestMctsPath(tie).map((step) => step.node_id)).toEqual(["root", "b"]);
    // Nothing visited below the root: the path is the root alone.
    expect(bestMctsPath(threeChildren()).map((step) => step.node_id)).toEqual(["root"]);
  });

  it("survives JSON and rebuilds from stored rows", () => {
    const tree = threeChildren();
    backpropagateMcts(tree, { node_id: "a", value: 1 });
    expandMctsNode(tree, { parent_id: "a", children: [{ id: "__proto__", content: "tricky id" }] });
    const rows = Object.values(JSON.parse(JSON.stringify(tree)).nodes as Record<string, MctsNodeRecord>).map(
      ({ id, parent_id, depth, visits, total_value, content }) => ({
        id,
        parent_id,
        depth,
        visits,
        total_value,
        content,
      }),
    );
    const rebuilt = mctsTreeFromNodes({ nodes: rows });
    expect(rebuilt.root_id).toBe("root");
    expect(rebuilt.nodes.root?.children).toEqual(["a", "b", "c"]);
    expect(rebuilt.nodes.a?.children).toEqual(["__proto__"]);
    expect(selectMctsLeaf(rebuilt)).toEqual(selectMctsLeaf(tree));
  });

  it("rejects malformed stored trees naming the field", () => {
    const root = { id: "r", parent_id: null, depth: 0, visits: 1, total_value: 1, content: "" };
    const child = { id: "c", parent_id: "r", depth: 1, visits: 0, total_value: 0, content: "" };
    expectInvalid(() => mctsTreeFromNodes({ nodes: [] }), "nodes");
    expectInvalid(() => mctsTreeFromNodes({ nodes: [root, { ...child, id: "r" }] }), "nodes.1.id");
    expectInvalid(
      () => mctsTreeFromNodes({ nodes: [root, { ...child, parent_id: null, depth: 0 }] }),
      "nodes.1.parent_id",
    );
    expectInvalid(
      () =>
        mctsTreeFromNodes({
          nodes: [
            { ...child, parent_id: "c2" },
            { ...child, id: "c2", parent_id: "c" },
          ],
        }),
      "nodes",
    );
    expectInvalid(() => mctsTreeFromNodes({ nodes: [root, { ...child, parent_id: "nope" }] }), "nodes.1.parent_id");
    expectInvalid(() => mctsTreeFromNodes({ nodes: [root, { ...child, depth: 3 }] }), "nodes.1.depth");
    expectInvalid(() => mctsTreeFromNodes({ nodes: [{ ...root, depth: 1 }] }), "nodes.0.depth");
    expectInvalid(() => mctsTreeFromNodes({ nodes: [root, { ...child, visits: -1 }] }), "nodes.1.visits");
    expectInvalid(
      () => mctsTreeFromNodes({ nodes: [root, { ...child, total_value: Number.NaN }] }),
      "nodes.1.total_value",
    );
    expectInvalid(
      () => mctsTreeFromNodes({ nodes: [root, { ...child, content: 5 as unknown as string }] }),
      "nodes.1.content",
    );
  });

  it("rejects bad operations naming the field, changing nothing", () => {
    const tree = threeChildren();
    expectInvalid(() => createMctsTree({ root_id: "", content: "x" }), "root_id");
    expectInvalid(() => createMctsTree({ root_id: "r", content: 1 as unknown as string }), "content");
    expectInvalid(
      () => expandMctsNode(tree, { parent_id: "missing", children: [{ id: "x", content: "" }] }),
      "parent_id",
    );
    expectInvalid(() => expandMctsNode(tree, { parent_id: "a", children: [] }), "children");
    expectInvalid(
      () => expandMctsNode(tree, { parent_id: "a", children: [{ id: "b", content: "" }] }),
      "children.0.id",
    );
    expectInvalid(
      () =>
        expandMctsNode(tree, {
          parent_id: "a",
          children: [
            { id: "x", content: "" },
            { id: "x", content: "" },
          ],
        }),
      "children.1.id",
    );
    expectInvalid(
      () => expandMctsNode(tree, { parent_id: "a", children: [{ id: "y", content: null as unknown as string }] }),
      "children.0.content",
    );
    expect(tree.nodes.a?.children).toEqual([]);
    expectInvalid(() => backpropagateMcts(tree, { node_id: "missing", value: 1 }), "node_id");
    expectInvalid(() => backpropagateMcts(tree, { node_id: "a", value: Number.NaN }), "value");
    expect(tree.nodes.root?.visits).toBe(0);
    expectInvalid(() => selectMctsLeaf(tree, { exploration_constant: -1 }), "exploration_constant");
    expectInvalid(() => bestMctsPath(tree, { exploration_constant: Number.NaN }), "exploration_constant");
    (tree.nodes.a as { visits: number }).visits = 5; // corrupted: more visits than its parent
    expectInvalid(() => selectMctsLeaf(tree), "nodes.a.visits");
    const dangling = threeChildren();
    dangling.nodes.root?.children.push("ghost");
    for (const id of ["a", "b", "c"]) backpropagateMcts(dangling, { node_id: id, value: 0 });
    expectInvalid(() => selectMctsLeaf(dangling), "nodes.root.children");
    const wrongDepth = threeChildren();
    (wrongDepth.nodes.b as { depth: number }).depth = 4;
    expectInvalid(() => backpropagateMcts(wrongDepth, { node_id: "b", value: 1 }), "nodes.b.depth");
    expect(wrongDepth.nodes.root?.visits).toBe(0);
  });

  it("keeps visit counts consistent under any sequence of operations", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ branching: fc.integer({ min: 0, max: 3 }), value: fc.double({ min: 0, max: 1, noNaN: true }) }),
          { maxLength: 60 },
        ),
        (steps) => {
          const tree = createMctsTree({ root_id: "n0", content: "" });
          let next = 1;
          for (const step of steps) {
            const { path, node_id } = selectMctsLeaf(tree);
            expect(path[0]).toBe("n0");
            path.slice(1).forEach((id, index) => expect(tree.nodes[id]?.parent_id).toBe(path[index]));
            expect(tree.nodes[node_id]?.children).toEqual([]);
            if (step.branching > 0) {
              expandMctsNode(tree, {
                parent_id: node_id,
                children: Array.from({ length: step.branching }, () => ({ id: `n${next++}`, content: "" })),
              });
            }
            backpropagateMcts(tree, { node_id, value: step.value });
          }
          expect(tree.nodes.n0?.visits).toBe(steps.length);
          for (const node of Object.values(tree.nodes)) {
            const childVisits = node.children.reduce((sum, id) => sum + (tree.nodes[id]?.visits ?? 0), 0);
            expect(node.visits).toBeGreaterThanOrEqual(childVisits);
          }
        },
      ),
    );
  });

  it("handles a tree of 20,000 nodes", () => {
    const tree = createMctsTree({ root_id: "n0", content: "" });
    let next = 1;
    while (next < 20_000) {
      const { node_id } = selectMctsLeaf(tree);
      expandMctsNode(tree, {
        parent_id: node_id,
        children: Array.from({ length: 4 }, () => ({ id: `n${next++}`, content: "" })),
      });
      backpropagateMcts(tree, { node_id, value: (next % 7) / 7 });
    }
    expect(Object.keys(tree.nodes).length).toBeGreaterThanOrEqual(20_000);
    const path = bestMctsPath(tree);
    expect(path[0]?.node_id).toBe("n0");
    path.slice(1).forEach((step, index) => expect(tree.nodes[step.node_id]?.parent_id).toBe(path[index]?.node_id));
  });
});

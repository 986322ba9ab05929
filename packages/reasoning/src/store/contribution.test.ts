import { DeliberateError } from "@deliberate/base";
import type { Store } from "@deliberate/store";
import { testDialects, useTestStores } from "@deliberate/store/testing";
import { describe, expect, it } from "vitest";
import { reasoningModule } from "../module.ts";
import type { ReasoningRepositories } from "./contribution.ts";

const now = "2026-11-22T10:00:00.000Z";
const later = "2026-11-22T10:05:00.000Z";

describe.each(testDialects)("reasoning repositories on %s", (dialect) => {
  const open = useTestStores<ReasoningRepositories>(dialect, { modules: [reasoningModule] });

  async function withSession(): Promise<Store<ReasoningRepositories>> {
    const store = await open();
    await store.sessions.create({ id: "s1", mode: "tree", now });
    return store;
  }

  it("report missing rows as NOT_FOUND naming the field", async () => {
    const store = await open();
    const errors = await Promise.all([
      store.branches.getInSession("s", "b").catch((caught: unknown) => caught),
      store.checkpoints.getInSession("s", "c").catch((caught: unknown) => caught),
      store.graphs.getGraph("s").catch((caught: unknown) => caught),
      store.timelines.getTimeline("t").catch((caught: unknown) => caught),
      store.mcts.getNode("s", "n").catch((caught: unknown) => caught),
      store.workflowRuns.get("w").catch((caught: unknown) => caught),
    ]);
    expect(errors.map((error) => DeliberateError.isInstance(error) && error.issues[0]?.field)).toEqual([
      "branch_id",
      "checkpoint_id",
      "session_id",
      "timeline_id",
      "node_id",
      "state_id",
    ]);
  });

  it("keeps branches in insertion order with their statuses", async () => {
    const store = await withSession();
    await store.branches.insert({
      id: "b1",
      session_id: "s1",
      parent_branch_id: null,
      content: "first",
      score: 0.5,
      now,
    });
    await store.branches.insert({
      id: "b2",
      session_id: "s1",
      parent_branch_id: "b1",
      content: "second",
      score: 0.75,
      now,
    });
    await store.branches.setStatus({ id: "b1", status: "completed", now: later });
    const branches = await store.branches.listBySession("s1");
    expect(branches.map((branch) => [branch.id, branch.status, branch.score])).toEqual([
      ["b1", "completed", 0.5],
      ["b2", "active", 0.75],
    ]);
    expect(branches[0]?.updated_at).toBe(later);
  });

  it("stores checkpoints with their JSON snapshot exactly as given", async () => {
    const store = await withSession();
    const snapshot = { zeta: 1, alpha: { thought_ids: ["t2", "t1"] }, "key with space": null };
    await store.checkpoints.create({
      id: "c1",
      session_id: "s1",
      name: "before",
      description: null,
      thought_count: 2,
      snapshot,
      now,
    });
    const [checkpoint] = await store.checkpoints.listBySession("s1");
    expect(checkpoint?.snapshot).toEqual(snapshot);
    // Key order survives the round trip (Postgres json, not jsonb): replayed prompts stay byte-identical.
    expect(Object.keys(checkpoint?.snapshot ?? {})).toEqual(["zeta", "alpha", "key with space"]);
    expect(checkpoint?.created_at).toBe(now);
  });

  it("counts a graph's nodes, terminals and edges in the database", async () => {
    const store = await withSession();
    await store.graphs.createGraph({
      session_id: "s1",
      root_node_id: "root",
      problem: "p",
      max_nodes: 50,
      max_depth: 5,
      prune_threshold: 0.2,
      now,
    });
    await store.graphs.insertNodes(
      [{ id: "root", session_id: "s1", parent_id: null, kind: "root", content: "problem", depth: 0 }],
      now,
    );
    const children = await store.graphs.insertNodes(
      [
        {
          id: "a",
          session_id: "s1",
          parent_id: "root",
          kind: "continuation",
          content: "a",
          depth: 1,
          score: 0.9,
          criteria: { z: 1, a: 0.8 },
        },
        { id: "b", session_id: "s1", parent_id: "root", kind: "continuation", content: "b", depth: 1 },
        { id: "c", session_id: "s1", parent_id: "a", kind: "refinement", content: "c", depth: 2 },
      ],
      now,
    );
    expect(children.map((node) => node.position)).toEqual([1, 2, 3]);
    await store.graphs.insertEdges(
      [
        { id: "e1", session_id: "s1", from_node_id: "root", to_node_id: "a", kind: "continuation" },
        { id: "e2", session_id: "s1", from_node_id: "root", to_node_id: "b", kind: "continuation" },
        { id: "e3", session_id: "s1", from_node_id: "a", to_node_id: "c", kind: "refinement" },
      ],
      now,
    );
    await store.graphs.setTerminal(["c"], later);
    await store.graphs.setStatus(["b"], "pruned", later);
    const stats = await store.graphs.stats("s1");
    expect(stats).toEqual({
      total_nodes: 4,
      active_nodes: 3,
      pruned_count: 1,
      terminal_count: 1,
      unscored_count: 2,
      max_depth: 2,
      edges: { continuation: 1, aggregation: 0, refinement: 1 },
    });
    expect((await store.graphs.activeLeaves("s1")).map((node) => node.id)).toEqual(["c"]);
    const [a, c] = await store.graphs.getNodes("s1", ["a", "c"], "node_ids");
    expect([a?.criteria, a?.is_terminal, c?.is_terminal]).toEqual([{ z: 1, a: 0.8 }, false, true]);
    expect(await store.graphs.countActive("s1")).toBe(3);
  });

  it("numbers timeline branches per timeline and records merges", async () => {
    const store = await withSession();
    await store.timelines.createTimeline({
      id: "tl",
      session_id: "s1",
      current_branch_id: "main",
      metadata: { goal: "g" },
      now,
    });
    await store.timelines.insertBranch({
      id: "main",
      timeline_id: "tl",
      parent_branch_id: null,
      label: "main",
      content: "m",
      now,
    });
    const fork = await store.timelines.insertBranch({
      id: "fork",
      timeline_id: "tl",
      parent_branch_id: "main",
      label: "fork",
      content: "f",
      now,
    });
    expect(fork.position).toBe(1);
    await store.timelines.markMerged({ id: "fork", intoId: "main", now: later });
    await store.timelines.recordMerge({
      id: "m1",
      timeline_id: "tl",
      source_branch_id: "fork",
      target_branch_id: "main",
      strategy: "synthesize",
      target_content_before: "m",
      merged_content: "m+f",
      conflicts: [{ point: "p", source: "s", target: "t", resolution: "r" }] as never,
      now: later,
    });
    expect(
      (await store.timelines.listBranches("tl")).map((branch) => [branch.id, branch.status, branch.merged_into_id]),
    ).toEqual([
      ["main", "active", null],
      ["fork", "merged", "main"],
    ]);
    expect((await store.timelines.listMerges("tl"))[0]?.conflicts).toHaveLength(1);
    expect((await store.timelines.getTimeline("tl")).metadata).toEqual({ goal: "g" });
  });

  it("lets only one of two concurrent submissions advance a workflow run", async () => {
    const store = await open();
    await store.workflowRuns.create({
      id: "w1",
      workflow: "cot",
      status: "in_progress",
      current_step: "one",
      inputs: { q: "?" },
      answers: {},
      created_at: now,
      updated_at: now,
      completed_at: null,
    });
    const outcomes = await Promise.all(
      ["a", "b", "c"].map((answer) =>
        store.workflowRuns.advance({ id: "w1", fromStep: "one", toStep: null, answers: { one: answer }, now: later }),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const run = await store.workflowRuns.get("w1");
    expect([run.status, run.completed_at]).toEqual(["complete", later]);
  });

  it("applies search statistics from concurrent searches as increments, so none is lost", async () => {
    const store = await withSession();
    const node = {
      session_id: "s1",
      root_id: "r",
      depth: 0,
      content: "root",
      visits: 1,
      total_value: 0.5,
      evaluation: null,
      is_terminal: false,
      metadata: {},
    };
    await store.mcts.insertNodes("s1", [{ ...node, id: "r", parent_id: null }], now);
    // Replicas (separate pools on Postgres) back up statistics through the same node at once.
    const writers = [store, await open({ replicaOf: store }), await open({ replicaOf: store })];
    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        (writers[index % writers.length] as Store<ReasoningRepositories>).transaction((repositories) =>
          repositories.mcts.updateNodes(
            [{ id: "r", visits_added: 2, value_added: 0.25, evaluation: 0.6, is_terminal: false }],
            later,
          ),
        ),
      ),
    );
    const root = await store.mcts.getNode("s1", "r");
    expect(root.visits).toBe(61);
    expect(root.total_value).toBeCloseTo(8, 10);
    expect([root.evaluation, root.is_terminal]).toEqual([0.6, false]);
    // Nodes appended by two searches at once get distinct positions.
    await Promise.all(
      ["x", "y", "z"].map((id) =>
        store.transaction((repositories) =>
          repositories.mcts.insertNodes(
            "s1",
            [
              { ...node, id, parent_id: "r", depth: 1 },
              { ...node, id: `${id}2`, parent_id: id, depth: 2 },
            ],
            now,
          ),
        ),
      ),
    );
    const positions = (await store.mcts.listTree("r")).map((entry) => entry.position);
    expect(positions).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

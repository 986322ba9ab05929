import { join } from "node:path";
import { reasoningTools, type ToolDefinition } from "@deliberate/contracts";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore } from "@deliberate/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { respondStateful as respond } from "./support/tool-answers.ts";
import {
  expectOutput,
  expectToolError,
  startStdioServer,
  temporaryDirectory,
  type StdioServer,
} from "./support/server-process.ts";

// reasoning_graph, reasoning_timeline and reasoning_mcts end to end: the built
// server over stdio, the real SDK client, the OpenAI-compatible provider
// pointed at the loopback fake model server; then a second process on the
// same database sees (and continues) what the first one stored.

/**
 * Progress notifications that arrived: increasing, within 1..total, each with
 * the total. (The server may still be flushing the last ones when the result
 * arrives — the divergent e2e test sees the same — so the count is not exact
 * here; the core tests assert one update per step.)
 */
function expectProgress(
  all: ReadonlyArray<{ progress: number; total?: number; message?: string }>,
  total: number,
): void {
  // Streamed answers report "generating <mode>: N tokens" between the steps; the steps themselves count 1..total.
  const updates = all.filter((update) => !update.message?.startsWith("generating "));
  expect(updates.length).toBeGreaterThan(0);
  expect(
    updates.every(
      (update, index) =>
        update.total === total &&
        update.progress >= 1 &&
        update.progress <= total &&
        (index === 0 || update.progress > (updates[index - 1] as { progress: number }).progress),
    ),
  ).toBe(true);
}

const definitions = new Map<string, ToolDefinition>(
  [reasoningTools.reasoning_graph, reasoningTools.reasoning_timeline, reasoningTools.reasoning_mcts].map(
    (definition) => [definition.name, definition as ToolDefinition],
  ),
);

describe("stdio: reasoning_graph, reasoning_timeline and reasoning_mcts, every operation", () => {
  const directory = temporaryDirectory();
  const databasePath = join(directory.path, "stateful.db");
  let fake: FakeModelServer;
  let env: Record<string, string>;
  let server: StdioServer;

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond });
    env = { DATABASE_PATH: databasePath, OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "test" };
    server = await startStdioServer(env);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory.remove();
  });

  const call = (
    name: string,
    args: Record<string, unknown>,
    options?: Parameters<StdioServer["client"]["callTool"]>[1],
  ) => server.client.callTool({ name, arguments: args }, options);

  let graphSession = "";
  let rootId = "";
  let timelineId = "";
  let mainBranchId = "";
  let mctsSession = "";
  let mctsRootId = "";
  let graphTotals: Record<string, unknown> = {};

  it("lists the three tools with their operations and annotations", async () => {
    const { tools } = await server.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("reasoning_graph")?.inputSchema.properties).toMatchObject({
      operation: { enum: ["init", "generate", "score", "aggregate", "refine", "prune", "finalize", "state"] },
      k: { type: ["integer", "null"] },
    });
    expect(byName.get("reasoning_timeline")?.inputSchema.properties).toMatchObject({
      merge_strategy: { enum: ["synthesize", "prefer_source", "prefer_target", "interleave", null] },
    });
    expect(byName.get("reasoning_mcts")?.inputSchema.properties).toMatchObject({
      operation: { enum: ["explore", "auto_backtrack", null] },
    });
    for (const name of definitions.keys()) {
      expect(byName.get(name)?.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: true,
      });
      expect(byName.get(name)?.outputSchema?.type).toBe("object");
    }
  });

  it("reasoning_graph: init, generate (progress), score, aggregate, refine, prune, finalize, state, and LIMIT_EXCEEDED", async () => {
    const init = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", {
        operation: "init",
        content: "Cut CI time in half.",
        config: { max_nodes: "12", max_depth: "3" },
      }),
    );
    graphSession = init["session_id"] as string;
    rootId = init["node_id"] as string;

    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const generated = expectOutput(
      "reasoning_graph",
      await call(
        "reasoning_graph",
        { operation: "generate", session_id: graphSession, node_id: rootId, k: "4" },
        { onprogress: (update) => progress.push(update) },
      ),
    );
    const children = generated["nodes"] as Array<{ id: string; score: number; parent_id: string; kind: string }>;
    expect(children).toHaveLength(4);
    expect(children.every((node) => node.parent_id === rootId && node.kind === "continuation")).toBe(true);
    expectProgress(progress, 4);
    expect(
      new Set(
        fake.requests.filter((request) => request.schemaName === "graph_continuation").map((request) => request.prompt),
      ).size,
    ).toBe(4);

    const scored = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", { operation: "score", session_id: graphSession, node_id: children[0]?.id }),
    );
    // The mean of 0.9, 0.7, 0.5 and 0.3, computed by the server.
    expect((scored["nodes"] as Array<{ score: number }>)[0]?.score).toBeCloseTo(0.6, 10);
    const scoreOf = (node: { id: string; score: number }) => (node.id === children[0]?.id ? 0.6 : node.score);

    const strong = children.filter((node) => scoreOf(node) > 0.5).map((node) => node.id);
    expect(strong.length).toBeGreaterThanOrEqual(2);
    const aggregated = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", { operation: "aggregate", session_id: graphSession, node_ids: strong }),
    );
    expect(aggregated["aggregated_insight"]).toBe("Cache the dependency layer and split the test suite.");

    const weak = children.filter((node) => scoreOf(node) < 0.5).map((node) => node.id);
    expect(weak.length).toBeGreaterThanOrEqual(1);
    const refined = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", { operation: "refine", session_id: graphSession, node_id: weak[0] }),
    );
    expect((refined["nodes"] as Array<{ kind: string }>)[0]?.kind).toBe("refinement");

    const pruned = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", { operation: "prune", session_id: graphSession, threshold: "0.5" }),
    );
    const prunedIds = (pruned["nodes"] as Array<{ id: string }>).map((node) => node.id).sort();
    // The weak nodes go; the refinement of one stands in for it and stays.
    expect(prunedIds).toEqual([...weak].sort());
    expect(pruned["state"]).toMatchObject({ total_nodes: 7, pruned_count: weak.length, active_nodes: 7 - weak.length });

    const finalized = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", { operation: "finalize", session_id: graphSession }),
    );
    expect(finalized["conclusions"]).toEqual(["Add a remote build cache", "Split the test suite in four"]);

    const state = expectOutput(
      "reasoning_graph",
      await call("reasoning_graph", { operation: "state", session_id: graphSession }),
    );
    graphTotals = state["state"] as Record<string, unknown>;
    // Edges count when both ends are active: the refinement's source was pruned.
    expect(graphTotals).toMatchObject({
      total_nodes: 7,
      edges: { continuation: strong.length, aggregation: strong.length, refinement: 0 },
      limits: { max_nodes: 12, max_depth: 3 },
    });

    const tooMany = expectToolError(
      await call("reasoning_graph", { operation: "generate", session_id: graphSession, node_id: rootId, k: 10 }),
    );
    expect(tooMany).toMatchObject({ code: "LIMIT_EXCEEDED", issues: [{ field: "k" }] });
    const badInput = expectToolError(
      await call("reasoning_graph", { operation: "aggregate", session_id: graphSession, node_ids: [rootId] }),
    );
    expect(badInput).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "node_ids" }] });
  });

  it("reasoning_timeline: create, branch (given and proposed), compare, and merge with all four strategies", async () => {
    const created = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "create",
        content: "Kickoff.\n\nLaunch in March.",
        metadata: { team: "web" },
      }),
    );
    timelineId = created["timeline_id"] as string;
    mainBranchId = created["branch_id"] as string;
    const early = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "branch",
        timeline_id: timelineId,
        content: "Kickoff.\n\nLaunch in January.",
        label: "early",
      }),
    );
    const proposed = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "branch",
        timeline_id: timelineId,
        parent_branch_id: mainBranchId,
      }),
    );
    expect(
      (proposed["branches"] as Array<{ id: string; label: string }>).find(
        (branch) => branch.id === proposed["branch_id"],
      )?.label,
    ).toBe("supplier delay");
    const late = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "branch",
        timeline_id: timelineId,
        parent_branch_id: mainBranchId,
        content: "Launch slips to June.",
        label: "late",
      }),
    );
    const last = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "branch",
        timeline_id: timelineId,
        parent_branch_id: mainBranchId,
        content: "Launch in March, quietly.",
        label: "quiet",
      }),
    );

    const compared = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "compare",
        timeline_id: timelineId,
        branch_ids: [early["branch_id"], late["branch_id"]],
      }),
    );
    const comparison = compared["comparison"] as {
      pairs: Array<{ fork_branch_id: string; steps_since_fork: number[] }>;
      quality_differences: { best_branch_id: string; spread: number };
    };
    expect(comparison.pairs[0]).toMatchObject({ fork_branch_id: mainBranchId, steps_since_fork: [1, 1] });
    expect(comparison.quality_differences.best_branch_id).toBe(late["branch_id"]);
    expect(comparison.quality_differences.spread).toBeCloseTo(0.1, 10);

    const interleaved = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timelineId,
        source_branch_id: early["branch_id"],
        target_branch_id: mainBranchId,
        merge_strategy: "interleave",
      }),
    );
    expect(interleaved["merged_content"]).toBe("Kickoff.\n\nLaunch in March.\n\nLaunch in January.");
    const synthesized = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timelineId,
        source_branch_id: late["branch_id"],
        target_branch_id: mainBranchId,
      }),
    );
    expect(synthesized).toMatchObject({ merge_strategy: "synthesize", conflicts: [{ kept: "both" }] });
    const preferSource = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timelineId,
        source_branch_id: last["branch_id"],
        target_branch_id: mainBranchId,
        merge_strategy: "prefer_source",
      }),
    );
    expect(preferSource).toMatchObject({
      merged_content: "Launch in January (source wins).",
      conflicts: [{ kept: "source" }],
    });
    const preferTarget = expectOutput(
      "reasoning_timeline",
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timelineId,
        source_branch_id: proposed["branch_id"],
        target_branch_id: mainBranchId,
        merge_strategy: "prefer_target",
      }),
    );
    expect(preferTarget).toMatchObject({
      merged_content: "Launch in March (target wins).",
      conflicts: [{ kept: "target" }],
    });
    expect((preferTarget["branches"] as Array<{ status: string }>).map((branch) => branch.status)).toEqual([
      "active",
      "merged",
      "merged",
      "merged",
      "merged",
    ]);

    const again = expectToolError(
      await call("reasoning_timeline", {
        operation: "merge",
        timeline_id: timelineId,
        source_branch_id: early["branch_id"],
        target_branch_id: mainBranchId,
      }),
    );
    expect(again).toMatchObject({ code: "CONFLICT", issues: [{ field: "source_branch_id" }] });
  });

  it("reasoning_mcts: explore (progress per iteration), continue from a stored node, auto_backtrack that executes", async () => {
    const progress: Array<{ progress: number; total?: number; message?: string }> = [];
    const explored = expectOutput(
      "reasoning_mcts",
      await call(
        "reasoning_mcts",
        { operation: "explore", content: "Choose a caching strategy.", iterations: "6", branching_factor: "2" },
        { onprogress: (update) => progress.push(update) },
      ),
    );
    expectProgress(progress, 6);
    expect(explored["iterations_completed"]).toBe(6);
    mctsSession = explored["session_id"] as string;
    mctsRootId = explored["root_node_id"] as string;
    const path = explored["best_path"] as Array<{ node_id: string; visits: number; ucb_score: number }>;
    expect(path.length).toBeGreaterThan(0);

    const continued = expectOutput(
      "reasoning_mcts",
      await call("reasoning_mcts", {
        session_id: mctsSession,
        node_id: mctsRootId,
        iterations: 3,
        branching_factor: 2,
      }),
    );
    expect(continued["root_node_id"]).toBe(mctsRootId);
    expect(continued["tree_size"] as number).toBeGreaterThan(explored["tree_size"] as number);

    // A detour with low confidence, then backtrack to the last good step.
    await call("reasoning_linear", { content: "Take a detour.", session_id: mctsSession });
    const suggestion = expectOutput(
      "reasoning_mcts",
      await call("reasoning_mcts", { operation: "auto_backtrack", session_id: mctsSession, quality_threshold: "0.05" }),
    );
    expect(suggestion).toMatchObject({ executed: false, backtrack_suggestion: { should_backtrack: false } });
    const executed = expectOutput(
      "reasoning_mcts",
      await call("reasoning_mcts", {
        operation: "auto_backtrack",
        session_id: mctsSession,
        quality_threshold: "0.2",
        auto_execute: "true",
      }),
    );
    // Steps: explore, explore, the detour's input (unscored), the detour (0.1). Back to step 2.
    expect(executed).toMatchObject({
      executed: true,
      backtrack_suggestion: { should_backtrack: true, target_step: 2, current_quality: 0.1 },
      superseded_thought_count: 2,
    });
    expect((executed["quality_history"] as Array<{ step: number }>).map((point) => point.step)).toEqual([1, 2, 4]);
    const checkpoints = expectOutput(
      "reasoning_checkpoint",
      await call("reasoning_checkpoint", { operation: "list", session_id: mctsSession }),
    );
    expect(checkpoints["checkpoints"]).toEqual([
      expect.objectContaining({ id: executed["checkpoint_id"], thought_count: 4 }),
    ]);
  });

  it("a second server process on the same database sees and continues the stored graph, timeline and search tree", async () => {
    const second = await startStdioServer(env);
    try {
      const secondCall = (name: string, args: Record<string, unknown>) =>
        second.client.callTool({ name, arguments: args });
      const state = expectOutput(
        "reasoning_graph",
        await secondCall("reasoning_graph", { operation: "state", session_id: graphSession }),
      );
      expect(state["state"]).toEqual(graphTotals);
      const branched = expectOutput(
        "reasoning_timeline",
        await secondCall("reasoning_timeline", {
          operation: "branch",
          timeline_id: timelineId,
          content: "A fresh idea.",
        }),
      );
      expect((branched["branches"] as unknown[]).length).toBe(6);
      expect((branched["branches"] as Array<{ parent_branch_id: string | null }>).at(-1)?.parent_branch_id).toBe(
        mainBranchId,
      );
      const continued = expectOutput(
        "reasoning_mcts",
        await secondCall("reasoning_mcts", { session_id: mctsSession, node_id: mctsRootId, iterations: 1 }),
      );
      expect(continued["root_node_id"]).toBe(mctsRootId);
    } finally {
      await second.close();
    }
    // And the rows are really there.
    const store = await openStore<ReasoningRepositories>({
      ...(await testStorePlace(databasePath)),
      modules: [reasoningModule],
    });
    try {
      expect((await store.graphs.stats(graphSession)).total_nodes).toBe(7);
      expect(await store.timelines.listMerges(timelineId)).toHaveLength(4);
      const root = (await store.mcts.listTree(mctsRootId))[0];
      expect(root?.visits).toBe(6 + 3 + 1);
    } finally {
      await store.close();
    }
  });
});

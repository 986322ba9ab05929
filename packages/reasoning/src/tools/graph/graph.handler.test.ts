import { DeliberateError, graphTool } from "@deliberate/contracts";
import type { GraphNode } from "../../store/repositories/graph.repository.ts";
import { describe, expect, it } from "vitest";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";
import type { ReasoningSessionRecord } from "../../session-sections.ts";
import { graphScore, structuralParents } from "./graph.handler.ts";

const { setup } = useTestEngines();

const criteria = (value: number) => ({ relevance: value, validity: value, depth: value, novelty: value });

/** Continuations numbered by call, each scored by `scoreOf(callIndex)`. */
function continuations(scoreOf: (index: number) => number = () => 0.6) {
  return (index: number) => ({ content: `continuation ${index}`, criteria: criteria(scoreOf(index)) });
}

const scripted = (extra: Record<string, unknown> = {}) =>
  bySchemaName({
    graph_continuation: continuations(),
    graph_score: {
      criteria: { relevance: 0.9, validity: 0.8, depth: 0.4, novelty: 0.3 },
      rationale: "solid but familiar",
    },
    graph_aggregate: { insight: "merged insight", criteria: criteria(0.8) },
    graph_refine: { critique: "too vague", refined_content: "sharper thought", criteria: criteria(0.9) },
    graph_finalize: { conclusions: ["Use approach B", "Measure first"] },
    ...extra,
  });

async function initGraph(testEngine: TestEngine, config?: Record<string, unknown>) {
  const result = await testEngine.engine.invoke("reasoning_graph", {
    operation: "init",
    content: "How do we cut build times?",
    problem: "CI is slow",
    ...(config ? { config } : {}),
  });
  return { sessionId: result.session_id as string, rootId: result.node_id as string, result };
}

type OutputNode = {
  id: string;
  score: number | null;
  depth: number;
  parent_id: string | null;
  kind: string;
  status: string;
  is_terminal: boolean;
};
const nodesOf = (result: Record<string, unknown>) => result.nodes as OutputNode[];

describe("graphScore", () => {
  it("is the plain mean of the four criteria", () => {
    expect(graphScore({ relevance: 0.9, validity: 0.8, depth: 0.4, novelty: 0.3 })).toBeCloseTo(0.6, 12);
    expect(graphScore(criteria(0))).toBe(0);
    expect(graphScore(criteria(1))).toBe(1);
  });
});

describe("reasoning_graph init and state", () => {
  it("stores a root without asking the model and reports state computed from the store", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId, result } = await initGraph(testEngine, { max_nodes: "50", max_depth: 4 });
    expect(graphTool.outputSchema.parse(result)).toBeTruthy();
    expect(nodesOf(result)).toEqual([
      {
        id: rootId,
        content: "How do we cut build times?",
        score: null,
        depth: 0,
        parent_id: null,
        kind: "root",
        status: "active",
        is_terminal: false,
      },
    ]);
    expect(result.state).toMatchObject({
      total_nodes: 1,
      active_nodes: 1,
      max_depth: 0,
      pruned_count: 0,
      root_node_id: rootId,
      limits: { max_nodes: 50, max_depth: 4, prune_threshold: 0.3 },
    });
    expect(testEngine.model.calls).toHaveLength(0);
    expect(await testEngine.store.sessions.get(sessionId)).toMatchObject({ mode: "graph" });

    const state = await testEngine.engine.invoke("reasoning_graph", { operation: "state", session_id: sessionId });
    expect(state.state).toMatchObject({
      total_nodes: 1,
      active_nodes: 1,
      unscored_count: 1,
      edges: { continuation: 0, aggregation: 0, refinement: 0 },
    });
    expect(state.node_id).toBe(rootId);
  });

  it("adds a graph to an existing session once, and refuses a second init there", async () => {
    const testEngine = await setup(
      scripted({ linear_continuation: { content: "x", confidence: 0.5, next_step: "y" } }),
    );
    const linear = await testEngine.engine.invoke("reasoning_linear", { content: "start" });
    const first = await testEngine.engine.invoke("reasoning_graph", {
      operation: "init",
      content: "root",
      session_id: linear.session_id,
    });
    expect(first.session_id).toBe(linear.session_id);
    const error = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "init",
        content: "again",
        session_id: linear.session_id,
      }),
    );
    expect(error.code).toBe("CONFLICT");
    expect(error.issues[0]?.field).toBe("session_id");
    expect(error.hint).toContain("omit session_id");
  });

  it("names missing fields per operation and writes nothing", async () => {
    const testEngine = await setup(scripted());
    const init = await errorOf(testEngine.engine.invoke("reasoning_graph", { operation: "init" }));
    expect(init.code).toBe("INVALID_INPUT");
    expect(init.issues.map((issue) => issue.field)).toEqual(["content"]);
    const refine = await errorOf(testEngine.engine.invoke("reasoning_graph", { operation: "refine" }));
    expect(refine.issues.map((issue) => issue.field).sort()).toEqual(["node_id", "session_id"]);
    const score = await errorOf(testEngine.engine.invoke("reasoning_graph", { operation: "score", session_id: "s" }));
    expect(score.issues).toEqual([
      { field: "node_id", message: "node_id (or node_ids) is required for operation 'score'" },
    ]);
    const aggregate = await errorOf(
      testEngine.engine.invoke("reasoning_graph", { operation: "aggregate", session_id: "s", node_ids: ["a", "a"] }),
    );
    expect(aggregate.issues).toEqual([{ field: "node_ids.1", message: "'a' is listed twice; list each node once" }]);
    const badConfig = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "init",
        content: "x",
        k: 11,
        config: { max_nodes: 0, prune_threshold: 2 },
      }),
    );
    expect(badConfig.issues.map((issue) => issue.field).sort()).toEqual([
      "config.max_nodes",
      "config.prune_threshold",
      "k",
    ]);
    expect(await testEngine.store.sessions.list({ limit: 5 })).toHaveLength(0);
    expect(testEngine.model.calls).toHaveLength(0);
  });

  it("reports an unknown session, a session without a graph and an unknown node as NOT_FOUND", async () => {
    const testEngine = await setup(
      scripted({ linear_continuation: { content: "x", confidence: 0.5, next_step: "y" } }),
    );
    const missing = await errorOf(
      testEngine.engine.invoke("reasoning_graph", { operation: "state", session_id: "ses_missing" }),
    );
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.issues[0]?.field).toBe("session_id");
    const linear = await testEngine.engine.invoke("reasoning_linear", { content: "start" });
    const noGraph = await errorOf(
      testEngine.engine.invoke("reasoning_graph", { operation: "generate", session_id: linear.session_id }),
    );
    expect(noGraph.code).toBe("NOT_FOUND");
    expect(noGraph.hint).toContain("'init'");
    const { sessionId, rootId } = await initGraph(testEngine);
    const unknown = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "score",
        session_id: sessionId,
        node_ids: [rootId, "gn_nope"],
      }),
    );
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.issues[0]?.field).toBe("node_ids.1");
    expect(testEngine.model.calls.filter((call) => call.schemaName?.startsWith("graph_"))).toHaveLength(0);
  });
});

describe("reasoning_graph generate", () => {
  it("asks for k continuations concurrently under distinct directions and stores nodes and continuation edges", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const testEngine = await setup(async (_options: { schemaName?: string }, index: number) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      return { content: `continuation ${index}`, criteria: { relevance: 1, validity: 0.5, depth: 0.5, novelty: 0 } };
    });
    const { sessionId, rootId } = await initGraph(testEngine);
    const progress: number[] = [];
    const result = await testEngine.engine.invoke(
      "reasoning_graph",
      { operation: "generate", session_id: sessionId, node_id: rootId, k: "4" },
      {
        progress: (update) => (update.message?.startsWith("generating ") ? undefined : progress.push(update.progress)),
      },
    );
    const nodes = nodesOf(result);
    expect(nodes).toHaveLength(4);
    expect(
      nodes.every(
        (node) => node.parent_id === rootId && node.depth === 1 && node.kind === "continuation" && node.score === 0.5,
      ),
    ).toBe(true);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(progress).toEqual([1, 2, 3, 4]);
    const prompts = testEngine.model.calls.map((call) => call.messages[0]?.content ?? "");
    expect(new Set(prompts).size).toBe(4);
    expect(
      prompts.every(
        (prompt) => prompt.includes("Root: How do we cut build times?") && prompt.includes("Problem: CI is slow"),
      ),
    ).toBe(true);

    const edges = await testEngine.store.graphs.listEdges(sessionId);
    expect(edges.map((edge) => [edge.from_node_id, edge.kind])).toEqual(nodes.map(() => [rootId, "continuation"]));
    const stored = await testEngine.store.graphs.getNode(sessionId, (nodes[0] as OutputNode).id);
    expect(stored.criteria).toEqual({ relevance: 1, validity: 0.5, depth: 0.5, novelty: 0 });
  });

  it("expands every active, non-terminal leaf when no node_id is given, with the path in the prompt", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine);
    const level1 = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", { operation: "generate", session_id: sessionId, k: 2 }),
    );
    expect(level1.map((node) => node.parent_id)).toEqual([rootId, rootId]);
    const level2 = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", { operation: "generate", session_id: sessionId, k: 2 }),
    );
    expect(level2.map((node) => node.parent_id)).toEqual([level1[0]?.id, level1[0]?.id, level1[1]?.id, level1[1]?.id]);
    expect(level2.every((node) => node.depth === 2)).toBe(true);
    const deepPrompt = testEngine.model.calls.at(-1)?.messages[0]?.content ?? "";
    expect(deepPrompt).toContain("Step 1: continuation");
    const state = await testEngine.engine.invoke("reasoning_graph", { operation: "state", session_id: sessionId });
    expect(state.state).toMatchObject({ total_nodes: 7, active_nodes: 7, max_depth: 2, edges: { continuation: 6 } });
    expect((state.edges as unknown[]).length).toBe(6);
  });

  it("enforces max_nodes before any model call, names the field, and writes nothing", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine, { max_nodes: 3 });
    const error = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 3,
      }),
    );
    expect(error.code).toBe("LIMIT_EXCEEDED");
    expect(error.issues[0]?.field).toBe("k");
    expect(error.message).toContain("max_nodes 3");
    expect(error.hint).toContain("Prune");
    expect(testEngine.model.calls).toHaveLength(0);
    expect((await testEngine.store.graphs.stats(sessionId)).total_nodes).toBe(1);
    // Within the limit it works; a per-call config raises the limit for that call only.
    await testEngine.engine.invoke("reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: rootId,
      k: 2,
    });
    const again = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "aggregate",
        session_id: sessionId,
        node_ids: [rootId, rootId + "x"],
      }),
    );
    expect(again.code).toBe("NOT_FOUND");
    const aggregateLimit = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "refine",
        session_id: sessionId,
        node_id: rootId,
      }),
    );
    expect(aggregateLimit.code).toBe("LIMIT_EXCEEDED");
    expect(aggregateLimit.issues[0]?.field).toBe("config.max_nodes");
    const raised = await testEngine.engine.invoke("reasoning_graph", {
      operation: "refine",
      session_id: sessionId,
      node_id: rootId,
      config: { max_nodes: 10 },
    });
    expect(nodesOf(raised)).toHaveLength(1);
  });

  it("enforces max_depth for a named node, for the frontier and for aggregation", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine, { max_depth: 1 });
    const children = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 2,
      }),
    );
    const calls = testEngine.model.calls.length;
    const named = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: children[0]?.id,
      }),
    );
    expect(named.code).toBe("LIMIT_EXCEEDED");
    expect(named.issues[0]).toEqual({ field: "node_id", message: "depth 2 > max_depth 1" });
    const frontier = await errorOf(
      testEngine.engine.invoke("reasoning_graph", { operation: "generate", session_id: sessionId }),
    );
    expect(frontier.issues[0]?.field).toBe("config.max_depth");
    const merged = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "aggregate",
        session_id: sessionId,
        node_ids: children.map((node) => node.id),
      }),
    );
    expect(merged.code).toBe("LIMIT_EXCEEDED");
    expect(testEngine.model.calls).toHaveLength(calls);
    const deeper = await testEngine.engine.invoke("reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: children[0]?.id,
      k: 1,
      config: { max_depth: 2 },
    });
    expect(nodesOf(deeper)[0]?.depth).toBe(2);
  });

  it("leaves nothing written when one of the concurrent calls fails", async () => {
    const testEngine = await setup((_options: unknown, index: number) => {
      if (index === 2) throw new DeliberateError({ code: "PROVIDER_UNAVAILABLE", message: "503" });
      return { content: `c${index}`, criteria: criteria(0.5) };
    });
    const { sessionId, rootId } = await initGraph(testEngine);
    const error = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 3,
      }),
    );
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect((await testEngine.store.graphs.stats(sessionId)).total_nodes).toBe(1);
  });
});

describe("reasoning_graph score, aggregate, refine, finalize", () => {
  it("scores nodes in code from the model's criteria", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine);
    const children = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 2,
      }),
    );
    const one = await testEngine.engine.invoke("reasoning_graph", {
      operation: "score",
      session_id: sessionId,
      node_id: children[0]?.id,
    });
    expect(one.node_id).toBe(children[0]?.id);
    expect(nodesOf(one)[0]?.score).toBeCloseTo(0.6, 12);
    const many = await testEngine.engine.invoke("reasoning_graph", {
      operation: "score",
      session_id: sessionId,
      node_ids: [rootId, children[1]?.id],
    });
    expect(nodesOf(many).map((node) => node.id)).toEqual([rootId, children[1]?.id]);
    const stored = await testEngine.store.graphs.getNode(sessionId, rootId);
    expect(stored.score).toBeCloseTo(0.6, 12);
    expect(stored.criteria).toEqual({ relevance: 0.9, validity: 0.8, depth: 0.4, novelty: 0.3 });
    const scorePrompt =
      testEngine.model.calls.find((call) => call.schemaName === "graph_score")?.messages[0]?.content ?? "";
    expect(scorePrompt).toContain("Thought to evaluate:\ncontinuation");
  });

  it("aggregates nodes into a new node linked by aggregation edges", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine);
    const children = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 3,
      }),
    );
    const sources = [children[0]?.id as string, children[2]?.id as string];
    const result = await testEngine.engine.invoke("reasoning_graph", {
      operation: "aggregate",
      session_id: sessionId,
      node_ids: sources,
    });
    expect(result.aggregated_insight).toBe("merged insight");
    expect(nodesOf(result)[0]).toMatchObject({ kind: "aggregation", depth: 2, score: 0.8, parent_id: sources[0] });
    const edges = (await testEngine.store.graphs.listEdges(sessionId)).filter((edge) => edge.kind === "aggregation");
    expect(edges.map((edge) => [edge.from_node_id, edge.to_node_id])).toEqual(
      sources.map((source) => [source, result.node_id]),
    );
    const prompt = testEngine.model.calls.at(-1)?.messages[0]?.content ?? "";
    expect(prompt).toContain("1. continuation 0");
    expect(prompt).toContain("2. continuation 2");
    const one = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "aggregate",
        session_id: sessionId,
        node_ids: [rootId],
      }),
    );
    expect(one.issues[0]).toEqual({ field: "node_ids", message: "aggregate needs at least two node_ids to merge" });
  });

  it("refines a node into a new version at the same depth, linked by a refinement edge", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine);
    const child = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 1,
      }),
    )[0] as OutputNode;
    const result = await testEngine.engine.invoke("reasoning_graph", {
      operation: "refine",
      session_id: sessionId,
      node_id: child.id,
    });
    expect(nodesOf(result)[0]).toMatchObject({
      content: "sharper thought",
      kind: "refinement",
      depth: 1,
      parent_id: child.id,
      score: 0.9,
    });
    const edges = await testEngine.store.graphs.listEdges(sessionId);
    expect(edges.at(-1)).toMatchObject({ from_node_id: child.id, to_node_id: result.node_id, kind: "refinement" });
    expect((await testEngine.store.graphs.getNode(sessionId, result.node_id as string)).metadata).toMatchObject({
      critique: "too vague",
    });
  });

  it("finalizes named or frontier nodes: marks them terminal and returns the model's conclusions", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine);
    const children = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 3,
      }),
    );
    const named = await testEngine.engine.invoke("reasoning_graph", {
      operation: "finalize",
      session_id: sessionId,
      terminal_node_ids: [children[1]?.id],
    });
    expect(named.conclusions).toEqual(["Use approach B", "Measure first"]);
    expect(nodesOf(named).map((node) => [node.id, node.is_terminal])).toEqual([[children[1]?.id, true]]);
    expect((await testEngine.store.graphs.getNode(sessionId, children[1]?.id as string)).is_terminal).toBe(true);
    const [thought] = await testEngine.store.thoughts.listBySession(sessionId);
    expect(thought).toMatchObject({
      mode: "graph",
      content: "1. Use approach B\n2. Measure first",
      metadata: { terminal_node_ids: [children[1]?.id] },
    });
    expect(thought?.confidence).toBeCloseTo(0.6, 12);
    // The frontier now skips the terminal node.
    const expanded = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", { operation: "generate", session_id: sessionId, k: 1 }),
    );
    expect(expanded.map((node) => node.parent_id)).toEqual([children[0]?.id, children[2]?.id]);
    const frontier = await testEngine.engine.invoke("reasoning_graph", {
      operation: "finalize",
      session_id: sessionId,
    });
    expect(
      nodesOf(frontier)
        .map((node) => node.id)
        .sort(),
    ).toEqual([children[1]?.id, ...expanded.map((node) => node.id)].sort());
    const state = await testEngine.engine.invoke("reasoning_graph", { operation: "state", session_id: sessionId });
    expect((state.state as { terminal_count: number }).terminal_count).toBe(3);
    const finalizePrompt = testEngine.model.calls.at(-1)?.messages[0]?.content ?? "";
    expect(finalizePrompt).toContain("Terminal thought 1:");
  });
});

describe("reasoning_graph prune", () => {
  it("prunes nodes below the threshold with their orphaned descendants, keeps them stored, and asks no model", async () => {
    // Children of the root score 0.2, 0.6, 0.4 (call order); grandchildren 0.9.
    const scores = [0.2, 0.6, 0.4, 0.9, 0.9, 0.9];
    const testEngine = await setup(
      bySchemaName({ graph_continuation: continuations((index) => scores[index] ?? 0.9) }),
    );
    const { sessionId, rootId } = await initGraph(testEngine);
    const children = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 3,
      }),
    );
    const grandchildren = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: children[0]?.id,
        k: 3,
      }),
    );
    const calls = testEngine.model.calls.length;

    const result = await testEngine.engine.invoke("reasoning_graph", {
      operation: "prune",
      session_id: sessionId,
      threshold: "0.5",
    });
    expect(testEngine.model.calls).toHaveLength(calls);
    expect(result.threshold).toBe(0.5);
    const pruned = nodesOf(result).map((node) => node.id);
    expect(pruned).toEqual([children[0]?.id, children[2]?.id, ...grandchildren.map((node) => node.id)]);
    expect(nodesOf(result).every((node) => node.status === "pruned")).toBe(true);
    expect(result.state).toMatchObject({ total_nodes: 7, active_nodes: 2, pruned_count: 5, max_depth: 1 });

    const again = await testEngine.engine.invoke("reasoning_graph", { operation: "prune", session_id: sessionId });
    expect(nodesOf(again)).toEqual([]);
    expect(again.threshold).toBe(0.3);

    const blocked = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: children[0]?.id,
      }),
    );
    expect(blocked.code).toBe("CONFLICT");
    expect(blocked.issues[0]?.field).toBe("node_id");
    const aggregateBlocked = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "aggregate",
        session_id: sessionId,
        node_ids: [children[1]?.id, children[2]?.id],
      }),
    );
    expect(aggregateBlocked.issues[0]?.field).toBe("node_ids.1");
  });

  it("uses the graph's stored prune_threshold, keeps unscored nodes and the root, and frees room under max_nodes", async () => {
    const testEngine = await setup(
      bySchemaName({ graph_continuation: continuations((index) => (index === 0 ? 0.1 : 0.7)) }),
    );
    const { sessionId, rootId } = await initGraph(testEngine, { max_nodes: 3, prune_threshold: 0.5 });
    await testEngine.engine.invoke("reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: rootId,
      k: 2,
    });
    const full = await errorOf(
      testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 1,
      }),
    );
    expect(full.code).toBe("LIMIT_EXCEEDED");
    const result = await testEngine.engine.invoke("reasoning_graph", { operation: "prune", session_id: sessionId });
    expect(result.threshold).toBe(0.5);
    expect(nodesOf(result)).toHaveLength(1);
    expect((await testEngine.store.graphs.getNode(sessionId, rootId)).status).toBe("active");
    await testEngine.engine.invoke("reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: rootId,
      k: 1,
    });
  });

  it("keeps a refinement when the weak node it improves is pruned, and keeps aggregations with one live source", async () => {
    const testEngine = await setup(
      bySchemaName({
        graph_continuation: continuations((index) => [0.1, 0.8, 0.2][index] ?? 0.5),
        graph_refine: { critique: "weak", refined_content: "better", criteria: criteria(0.9) },
        graph_aggregate: { insight: "both", criteria: criteria(0.7) },
      }),
    );
    const { sessionId, rootId } = await initGraph(testEngine);
    const [weak, strong, weak2] = nodesOf(
      await testEngine.engine.invoke("reasoning_graph", {
        operation: "generate",
        session_id: sessionId,
        node_id: rootId,
        k: 3,
      }),
    ) as OutputNode[];
    const refined = await testEngine.engine.invoke("reasoning_graph", {
      operation: "refine",
      session_id: sessionId,
      node_id: weak?.id,
    });
    const merged = await testEngine.engine.invoke("reasoning_graph", {
      operation: "aggregate",
      session_id: sessionId,
      node_ids: [strong?.id, weak2?.id],
    });
    const result = await testEngine.engine.invoke("reasoning_graph", {
      operation: "prune",
      session_id: sessionId,
      threshold: 0.5,
    });
    expect(nodesOf(result).map((node) => node.id)).toEqual([weak?.id, weak2?.id]);
    expect((await testEngine.store.graphs.getNode(sessionId, refined.node_id as string)).status).toBe("active");
    expect((await testEngine.store.graphs.getNode(sessionId, merged.node_id as string)).status).toBe("active");
  });

  it("handles a 1,111-node graph built through the public API: prune and state stay consistent with the store", async () => {
    const testEngine = await setup(bySchemaName({ graph_continuation: continuations((index) => (index % 10) / 10) }), {
      concurrency: 16,
    });
    const { sessionId } = await initGraph(testEngine, { max_nodes: 2000 });
    for (let level = 0; level < 3; level += 1)
      await testEngine.engine.invoke("reasoning_graph", { operation: "generate", session_id: sessionId, k: 10 });
    const before = await testEngine.engine.invoke("reasoning_graph", { operation: "state", session_id: sessionId });
    expect(before.state).toMatchObject({
      total_nodes: 1111,
      active_nodes: 1111,
      max_depth: 3,
      edges: { continuation: 1110 },
    });
    expect(nodesOf(before)).toHaveLength(200);

    const result = await testEngine.engine.invoke("reasoning_graph", {
      operation: "prune",
      session_id: sessionId,
      threshold: 0.35,
    });
    const nodes = await testEngine.store.graphs.listNodes(sessionId);
    const edges = await testEngine.store.graphs.listEdges(sessionId);
    const byId = new Map<string, GraphNode>(nodes.map((node) => [node.id, node]));
    const parents = structuralParents(nodes, edges);
    for (const node of nodes) {
      const parentIds = parents.get(node.id) ?? [];
      const parentAlive = parentIds.length === 0 || parentIds.some((id) => byId.get(id)?.status === "active");
      const shouldBeActive = parentIds.length === 0 || ((node.score === null || node.score >= 0.35) && parentAlive);
      expect(node.status).toBe(shouldBeActive ? "active" : "pruned");
    }
    const active = nodes.filter((node) => node.status === "active").length;
    expect(result.state).toMatchObject({ total_nodes: 1111, active_nodes: active, pruned_count: 1111 - active });
    expect(nodesOf(result)).toHaveLength(1111 - active);
  });
});

describe("reasoning_graph annotations", () => {
  it("keeps the spec's name and a description within 1,024 characters", () => {
    expect(graphTool.name).toBe("reasoning_graph");
    expect(graphTool.description.length).toBeLessThanOrEqual(1024);
    expect(graphTool.operations).toEqual([
      "init",
      "generate",
      "score",
      "aggregate",
      "refine",
      "prune",
      "finalize",
      "state",
    ]);
  });
});

describe("the session record", () => {
  it("includes the graph's nodes and edges, so exports and resources show it", async () => {
    const testEngine = await setup(scripted());
    const { sessionId, rootId } = await initGraph(testEngine);
    await testEngine.engine.invoke("reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: rootId,
      k: 2,
    });
    const record = (await testEngine.engine.readSession(sessionId)) as ReasoningSessionRecord;
    expect(record.graph?.graph.root_node_id).toBe(rootId);
    expect(record.graph?.nodes).toHaveLength(3);
    expect(record.graph?.edges.map((edge) => [edge.from_node_id, edge.kind])).toEqual([
      [rootId, "continuation"],
      [rootId, "continuation"],
    ]);
    expect(record.timelines).toBeUndefined();
  });
});

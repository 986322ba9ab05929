import { DeliberateError, mctsTool } from "@deliberate/contracts";
import type { GenerateOptions } from "@deliberate/providers";
import type { MctsNode } from "../../store/repositories/mcts.repository.ts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bySchemaName, createTestEngine, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";
import type { ReasoningRepositories } from "../../store/contribution.ts";
import { decideBacktrack, type QualityPoint } from "./mcts.handler.ts";

const { setup } = useTestEngines();

/** The last line of a prompt's search path, e.g. "Step 2: a.b". */
function lastStep(call: { messages: Array<{ content: string }> }): string {
  const lines = (call.messages[0]?.content ?? "")
    .split("\n")
    .filter((line) => line.startsWith("Step ") || line.startsWith("Problem: "));
  return (lines.at(-1) ?? "").replace(/^Step \d+: |^Problem: /, "");
}

/**
 * A scripted search model: expanding a node named `x` proposes `x.1`, `x.2`, …
 * (the root is "root"); evaluating a node returns `values[name]` (default 0.5)
 * and marks it terminal when it is listed in `terminal`.
 */
function searchModel(values: Record<string, number> = {}, terminal: readonly string[] = []) {
  return (options: GenerateOptions<unknown>) => {
    const step = lastStep(options);
    if (options.schemaName === "mcts_expand") {
      const count = Number(/exactly (\d+)/.exec(options.messages[0]?.content ?? "")?.[1] ?? 3);
      return { steps: Array.from({ length: count }, (_, index) => `${step}.${index + 1}`) };
    }
    if (options.schemaName === "mcts_evaluate")
      return { value: values[step] ?? 0.5, reaches_conclusion: terminal.includes(step), rationale: "scripted" };
    throw new Error(`unexpected call ${options.schemaName}`);
  };
}

function summarize(calls: ReadonlyArray<GenerateOptions<unknown> & { schemaName?: string }>): string[] {
  return calls.map((call) => `${call.schemaName === "mcts_expand" ? "expand" : "evaluate"} ${lastStep(call)}`);
}

async function storedTree(
  testEngine: TestEngine<ReasoningRepositories>,
  sessionId: string,
): Promise<Map<string, MctsNode>> {
  return new Map((await testEngine.store.mcts.listBySession(sessionId)).map((node) => [node.id, node]));
}

function childrenOf(tree: Map<string, MctsNode>, id: string): MctsNode[] {
  return [...tree.values()].filter((node) => node.parent_id === id);
}

describe("reasoning_mcts explore", () => {
  it("tries every unvisited child before revisiting any, then expands the best by UCB1", async () => {
    const testEngine = await setup(searchModel({ "root.1": 0.2, "root.2": 0.9, "root.3": 0.5 }));
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      operation: "explore",
      content: "root",
      iterations: 5,
      exploration_constant: 0,
    });
    expect(summarize(testEngine.model.calls)).toEqual([
      "expand root",
      "evaluate root.1",
      "evaluate root.2",
      "evaluate root.3",
      // c = 0: pure exploitation; root.2 has the best mean, so it is expanded.
      "expand root.2",
      "evaluate root.2.1",
      "evaluate root.2.2",
    ]);
    expect(result.iterations_completed).toBe(5);
    expect(result.tree_size).toBe(7);
    const path = result.best_path as Array<{
      content: string;
      visits: number;
      mean_value: number;
      ucb_score: number;
      depth: number;
    }>;
    expect(path.map((step) => step.content)).toEqual(["root.2", "root.2.1"]);
    expect(path[0]).toMatchObject({ visits: 3, depth: 1 });
    expect(path[0]?.mean_value).toBeCloseTo((0.9 + 0.5 + 0.5) / 3, 12);
    expect(path[0]?.ucb_score).toBeCloseTo(path[0]?.mean_value as number, 12);
  });

  it("balances exploration with the constant: a large c revisits the least visited child", async () => {
    const testEngine = await setup(searchModel({ "root.1": 0.9, "root.2": 0.1 }));
    await testEngine.engine.invoke("reasoning_mcts", {
      content: "root",
      iterations: 6,
      branching_factor: 2,
      exploration_constant: 10,
      simulation_depth: 1,
    });
    // Depth 1: no further expansion, so revisits reuse stored values (no model call) and only selection decides.
    expect(summarize(testEngine.model.calls)).toEqual(["expand root", "evaluate root.1", "evaluate root.2"]);
    const session = (await testEngine.store.sessions.list({ limit: 1 }))[0]?.id as string;
    const tree = await storedTree(testEngine, session);
    const root = [...tree.values()].find((node) => node.parent_id === null) as MctsNode;
    const visits = childrenOf(tree, root.id).map((node) => node.visits);
    // With c = 10 the exploration bonus dominates, so visits stay balanced (3 and 3) despite 0.9 vs 0.1.
    expect(visits).toEqual([3, 3]);
  });

  it("keeps visit counts consistent and persists the whole tree once, with a thought for the best line", async () => {
    const testEngine = await setup(searchModel({ "root.1": 0.3, "root.2": 0.8, "root.2.1": 0.6 }));
    const progress: string[] = [];
    const result = await testEngine.engine.invoke(
      "reasoning_mcts",
      { content: "root", iterations: "12", branching_factor: 2 },
      {
        progress: (update) =>
          update.message?.startsWith("generating ") ? undefined : progress.push(`${update.progress}/${update.total}`),
      },
    );
    expect(mctsTool.outputSchema.parse(result)).toBeTruthy();
    expect(progress).toEqual(Array.from({ length: 12 }, (_, index) => `${index + 1}/12`));
    const sessionId = result.session_id as string;
    const tree = await storedTree(testEngine, sessionId);
    expect(tree.size).toBe(result.tree_size);
    const root = tree.get(result.root_node_id as string) as MctsNode;
    expect(root).toMatchObject({ parent_id: null, depth: 0, visits: 12, evaluation: null });
    expect(childrenOf(tree, root.id).reduce((sum, child) => sum + child.visits, 0)).toBe(12);
    const evaluations = testEngine.model.calls.filter((call) => call.schemaName === "mcts_evaluate").length;
    for (const node of tree.values()) {
      const below = childrenOf(tree, node.id).reduce((sum, child) => sum + child.visits, 0);
      expect(node.visits).toBeGreaterThanOrEqual(below);
      if (node.visits > 0 && node.parent_id !== null) expect(node.evaluation).not.toBeNull();
    }
    expect(evaluations).toBeLessThanOrEqual(12);

    const path = result.best_path as Array<{ node_id: string; visits: number }>;
    // Best path by visits: each step is its parent's most visited child.
    let parent = root.id;
    for (const step of path) {
      const siblings = childrenOf(tree, parent);
      expect(step.visits).toBe(Math.max(...siblings.map((node) => node.visits)));
      expect(tree.get(step.node_id)?.visits).toBe(step.visits);
      parent = step.node_id;
    }
    const thought = await testEngine.store.thoughts.get(result.thought_id as string);
    expect(thought).toMatchObject({ mode: "mcts", session_id: sessionId });
    expect(thought.confidence).toBeCloseTo(
      (tree.get(path.at(-1)?.node_id as string) as MctsNode).total_value / (path.at(-1)?.visits as number),
      12,
    );
    const [invocation] = await testEngine.store.invocations.list({ tool: "reasoning_mcts" });
    expect(invocation?.model_calls).toBe(testEngine.model.calls.length);
  });

  it("honours simulation_depth and never extends a node judged a complete answer", async () => {
    const testEngine = await setup(searchModel({ "root.1": 0.9, "root.2": 0.1 }, ["root.1"]));
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      content: "root",
      iterations: 10,
      branching_factor: 2,
      simulation_depth: 2,
      exploration_constant: 0,
    });
    const tree = await storedTree(testEngine, result.session_id as string);
    expect(Math.max(...[...tree.values()].map((node) => node.depth))).toBeLessThanOrEqual(2);
    const terminalNode = [...tree.values()].find((node) => node.content === "root.1") as MctsNode;
    expect(terminalNode.is_terminal).toBe(true);
    expect(childrenOf(tree, terminalNode.id)).toHaveLength(0);
    // root.1 keeps winning (c = 0) but is terminal, so revisits reuse its value without a model call.
    expect(terminalNode.visits).toBe(9);
    expect(testEngine.model.calls).toHaveLength(3);
  });

  it("continues a stored search from a node, updating its ancestors so the tree stays consistent", async () => {
    const testEngine = await setup(searchModel({ "root.1": 0.4, "root.2": 0.7 }));
    const first = await testEngine.engine.invoke("reasoning_mcts", {
      content: "root",
      iterations: 2,
      branching_factor: 2,
    });
    const sessionId = first.session_id as string;
    const before = await storedTree(testEngine, sessionId);
    const child = [...before.values()].find((node) => node.content === "root.2") as MctsNode;
    const calls = testEngine.model.calls.length;

    const second = await testEngine.engine.invoke("reasoning_mcts", {
      session_id: sessionId,
      node_id: child.id,
      iterations: 2,
      branching_factor: 2,
    });
    expect(second.root_node_id).toBe(first.root_node_id);
    expect(summarize(testEngine.model.calls.slice(calls))).toEqual([
      "expand root.2",
      "evaluate root.2.1",
      "evaluate root.2.2",
    ]);
    const after = await storedTree(testEngine, sessionId);
    expect(after.get(child.id)?.visits).toBe((before.get(child.id)?.visits as number) + 2);
    expect(after.get(first.root_node_id as string)?.visits).toBe(4);
    expect((second.best_path as Array<{ content: string }>)[0]?.content).toMatch(/^root\.2\.\d$/);
    // The first prompt of the continued search shows the whole line from the problem.
    expect(testEngine.model.calls[calls]?.messages[0]?.content).toContain("Problem: root\nStep 1: root.2");
    expect(await testEngine.store.thoughts.count(sessionId)).toBe(2);
  });

  it("keeps every visit when two searches continue the same tree at once", async () => {
    const testEngine = await setup({ latencyMs: 2, answer: searchModel({ "root.1": 0.4, "root.2": 0.7 }) });
    const first = await testEngine.engine.invoke("reasoning_mcts", {
      content: "root",
      iterations: 2,
      branching_factor: 2,
    });
    const sessionId = first.session_id as string;
    const before = await storedTree(testEngine, sessionId);
    const [left, right] = ["root.1", "root.2"].map(
      (content) => [...before.values()].find((node) => node.content === content) as MctsNode,
    );
    await Promise.all([
      testEngine.engine.invoke("reasoning_mcts", {
        session_id: sessionId,
        node_id: left?.id,
        iterations: 2,
        branching_factor: 2,
      }),
      testEngine.engine.invoke("reasoning_mcts", {
        session_id: sessionId,
        node_id: right?.id,
        iterations: 3,
        branching_factor: 2,
      }),
    ]);
    const after = await storedTree(testEngine, sessionId);
    // Both searches backpropagate through the root: 2 + 2 + 3 visits, and no child has more than its parent.
    expect(after.get(first.root_node_id as string)?.visits).toBe(7);
    for (const node of after.values()) {
      const childVisits = childrenOf(after, node.id).reduce((total, child) => total + child.visits, 0);
      expect(childVisits, node.content).toBeLessThanOrEqual(node.visits);
    }
  });

  it("writes nothing when the model fails mid-search", async () => {
    let call = 0;
    const model = searchModel();
    const testEngine = await setup((options: GenerateOptions<unknown>) => {
      call += 1;
      if (call === 4) throw new DeliberateError({ code: "PROVIDER_TIMEOUT", message: "slow" });
      return model(options);
    });
    const error = await errorOf(testEngine.engine.invoke("reasoning_mcts", { content: "root", iterations: 5 }));
    expect(error.code).toBe("PROVIDER_TIMEOUT");
    expect(await testEngine.store.sessions.list({ limit: 5 })).toHaveLength(0);
    const [invocation] = await testEngine.store.invocations.list();
    expect(invocation).toMatchObject({ success: false, error_code: "PROVIDER_TIMEOUT" });
  });

  it("names bad input and unknown nodes without asking the model", async () => {
    const testEngine = await setup(searchModel());
    const noContent = await errorOf(testEngine.engine.invoke("reasoning_mcts", { operation: "explore" }));
    expect(noContent.issues.map((issue) => issue.field)).toEqual(["content"]);
    const noSession = await errorOf(testEngine.engine.invoke("reasoning_mcts", { node_id: "mn_1" }));
    expect(noSession.issues.map((issue) => issue.field)).toEqual(["session_id"]);
    const both = await errorOf(
      testEngine.engine.invoke("reasoning_mcts", { content: "x", node_id: "mn_1", session_id: "s" }),
    );
    expect(both.issues[0]?.field).toBe("content");
    const bounds = await errorOf(
      testEngine.engine.invoke("reasoning_mcts", {
        content: "x",
        iterations: 101,
        simulation_depth: 0,
        exploration_constant: -1,
        branching_factor: 6,
      }),
    );
    expect(bounds.issues.map((issue) => issue.field).sort()).toEqual([
      "branching_factor",
      "exploration_constant",
      "iterations",
      "simulation_depth",
    ]);
    const first = await testEngine.engine.invoke("reasoning_mcts", { content: "root", iterations: 1 });
    const calls = testEngine.model.calls.length;
    const unknown = await errorOf(
      testEngine.engine.invoke("reasoning_mcts", { session_id: first.session_id, node_id: "mn_nope" }),
    );
    expect(unknown.code).toBe("NOT_FOUND");
    expect(unknown.issues[0]?.field).toBe("node_id");
    const missingSession = await errorOf(
      testEngine.engine.invoke("reasoning_mcts", { session_id: "ses_nope", content: "x" }),
    );
    expect(missingSession.code).toBe("NOT_FOUND");
    expect(testEngine.model.calls).toHaveLength(calls);
  });

  it("keeps root visits equal to the iterations and every node's visits at least its children's, for any values", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 15 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 20 }),
        async (iterations, branching, depth, values) => {
          let evaluation = 0;
          const testEngine = await createTestEngine((options: GenerateOptions<unknown>) => {
            if (options.schemaName === "mcts_expand") return searchModel()(options);
            const value = values[evaluation % values.length] as number;
            evaluation += 1;
            return { value, reaches_conclusion: false, rationale: "r" };
          });
          try {
            const result = await testEngine.engine.invoke("reasoning_mcts", {
              content: "root",
              iterations,
              branching_factor: branching,
              simulation_depth: depth,
            });
            const tree = await storedTree(testEngine, result.session_id as string);
            const root = tree.get(result.root_node_id as string) as MctsNode;
            expect(root.visits).toBe(iterations);
            for (const node of tree.values()) {
              const below = childrenOf(tree, node.id).reduce((sum, child) => sum + child.visits, 0);
              expect(node.visits).toBeGreaterThanOrEqual(below);
              expect(node.depth).toBeLessThanOrEqual(depth);
              expect(node.total_value).toBeLessThanOrEqual(node.visits + 1e-9);
            }
            expect(childrenOf(tree, root.id).reduce((sum, child) => sum + child.visits, 0)).toBe(iterations);
          } finally {
            await testEngine.store.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("decideBacktrack", () => {
  const points = (...qualities: number[]): QualityPoint[] =>
    qualities.map((quality, index) => ({ step: index + 1, thought_id: `t${index + 1}`, quality }));

  it("targets the last step at or above the threshold within the lookback", () => {
    const decision = decideBacktrack(points(0.8, 0.7, 0.9, 0.6, 0.3), { threshold: 0.5, lookbackDepth: 5 });
    expect(decision).toMatchObject({ should_backtrack: true, target: { step: 4 }, current: { step: 5 } });
    expect(decision.quality_drop).toBeCloseTo(0.3, 12);
  });

  it("does not backtrack when quality is fine, never was fine in the lookback, or history is too short", () => {
    expect(decideBacktrack(points(0.2, 0.6), { threshold: 0.5, lookbackDepth: 5 }).should_backtrack).toBe(false);
    const stuck = decideBacktrack(points(0.9, 0.2, 0.2, 0.1), { threshold: 0.5, lookbackDepth: 2 });
    expect(stuck.should_backtrack).toBe(false);
    expect(stuck.window.map((point) => point.step)).toEqual([2, 3, 4]);
    expect(stuck.reason).toContain("larger lookback_depth");
    expect(decideBacktrack(points(0.9, 0.2, 0.2, 0.1), { threshold: 0.5, lookbackDepth: 3 })).toMatchObject({
      should_backtrack: true,
      target: { step: 1 },
    });
    expect(decideBacktrack(points(0.1), { threshold: 0.5, lookbackDepth: 5 }).reason).toContain(
      "Not enough quality history",
    );
  });

  it("only ever targets an earlier step in the window that met the threshold, with a positive drop", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 15 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 10 }),
        (qualities, threshold, lookbackDepth) => {
          const history = points(...qualities);
          const decision = decideBacktrack(history, { threshold, lookbackDepth });
          if (!decision.should_backtrack) return;
          const current = history.at(-1) as QualityPoint;
          expect(current.quality).toBeLessThan(threshold);
          expect(decision.target?.quality).toBeGreaterThanOrEqual(threshold);
          expect(decision.target?.step).toBeGreaterThanOrEqual(current.step - lookbackDepth);
          expect(decision.target?.step).toBeLessThan(current.step);
          expect(decision.quality_drop).toBeGreaterThan(0);
          // No later step in the window also met the threshold.
          expect(history.slice(decision.target?.step, -1).every((point) => point.quality < threshold)).toBe(true);
        },
      ),
    );
  });
});

describe("reasoning_mcts auto_backtrack", () => {
  async function sessionWith(testEngine: TestEngine<ReasoningRepositories>, confidences: Array<number | null>) {
    const now = "2026-11-22T10:00:00.000Z";
    await testEngine.store.sessions.create({ id: "ses_q", mode: "linear", now });
    await testEngine.store.branches.insert({
      id: "br_a",
      session_id: "ses_q",
      parent_branch_id: null,
      content: "a",
      score: 1,
      now,
    });
    for (const [index, confidence] of confidences.entries()) {
      await testEngine.store.thoughts.append({
        id: `th_${index + 1}`,
        session_id: "ses_q",
        branch_id: index < 2 ? "br_a" : null,
        mode: "linear",
        content: `step ${index + 1}`,
        confidence,
        created_at: now,
      });
    }
    return "ses_q";
  }

  it("suggests in code from the thoughts' confidences without changing anything or calling a model", async () => {
    const testEngine = await setup(bySchemaName({}));
    const sessionId = await sessionWith(testEngine, [0.8, null, 0.7, 0.3, 0.2]);
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      operation: "auto_backtrack",
      session_id: sessionId,
      quality_threshold: "0.5",
    });
    expect(mctsTool.outputSchema.parse(result)).toBeTruthy();
    expect(result.executed).toBe(false);
    expect(result.backtrack_suggestion).toMatchObject({
      should_backtrack: true,
      target_step: 3,
      target_thought_id: "th_3",
      current_quality: 0.2,
    });
    expect((result.backtrack_suggestion as { quality_drop: number }).quality_drop).toBeCloseTo(0.5, 12);
    // Unscored thoughts are skipped; steps are positions among the active thoughts.
    expect((result.quality_history as QualityPoint[]).map((point) => point.step)).toEqual([1, 3, 4, 5]);
    expect(await testEngine.store.thoughts.count(sessionId, { activeOnly: true })).toBe(5);
    expect(testEngine.model.calls).toHaveLength(0);
  });

  it("with auto_execute restores the earlier state through a checkpoint that reasoning_checkpoint can undo", async () => {
    const testEngine = await setup(bySchemaName({}));
    const sessionId = await sessionWith(testEngine, [0.8, 0.9, 0.7, 0.3, 0.2]);
    await testEngine.store.sessions.setActiveBranch({ id: sessionId, branchId: null, now: "2026-11-22T10:00:00.000Z" });
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      operation: "auto_backtrack",
      session_id: sessionId,
      auto_execute: "true",
      lookback_depth: 2,
    });
    expect(result).toMatchObject({
      executed: true,
      superseded_thought_count: 2,
      backtrack_suggestion: { target_step: 3 },
    });
    const active = await testEngine.store.thoughts.listBySession(sessionId, { activeOnly: true });
    expect(active.map((thought) => thought.id)).toEqual(["th_1", "th_2", "th_3"]);
    expect(await testEngine.store.thoughts.count(sessionId)).toBe(5);

    const checkpoints = await testEngine.engine.invoke("reasoning_checkpoint", {
      operation: "list",
      session_id: sessionId,
    });
    expect(checkpoints.checkpoints).toEqual([
      expect.objectContaining({ id: result.checkpoint_id, name: "before auto-backtrack to step 3", thought_count: 5 }),
    ]);
    await testEngine.engine.invoke("reasoning_checkpoint", {
      operation: "restore",
      session_id: sessionId,
      checkpoint_id: result.checkpoint_id,
    });
    expect(await testEngine.store.thoughts.count(sessionId, { activeOnly: true })).toBe(5);
  });

  it("returns the focus to the target step's branch", async () => {
    const testEngine = await setup(bySchemaName({}));
    const sessionId = await sessionWith(testEngine, [0.9, 0.8, 0.2]);
    await testEngine.store.sessions.setActiveBranch({ id: sessionId, branchId: null, now: "2026-11-22T10:00:00.000Z" });
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      operation: "auto_backtrack",
      session_id: sessionId,
      auto_execute: true,
    });
    expect(result.executed).toBe(true);
    expect((await testEngine.store.sessions.get(sessionId)).active_branch_id).toBe("br_a");
  });

  it("does not execute when no backtrack is advised, and needs an existing session", async () => {
    const testEngine = await setup(bySchemaName({}));
    const sessionId = await sessionWith(testEngine, [0.3, 0.4, 0.2]);
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      operation: "auto_backtrack",
      session_id: sessionId,
      auto_execute: true,
    });
    expect(result).toMatchObject({ executed: false, backtrack_suggestion: { should_backtrack: false } });
    expect(result.checkpoint_id).toBeUndefined();
    expect(await testEngine.store.checkpoints.listBySession(sessionId)).toHaveLength(0);
    const missing = await errorOf(testEngine.engine.invoke("reasoning_mcts", { operation: "auto_backtrack" }));
    expect(missing.issues[0]).toEqual({
      field: "session_id",
      message: "session_id is required for operation 'auto_backtrack'",
    });
    const unknown = await errorOf(
      testEngine.engine.invoke("reasoning_mcts", { operation: "auto_backtrack", session_id: "ses_nope" }),
    );
    expect(unknown.code).toBe("NOT_FOUND");
  });

  it("reads the quality an explore recorded", async () => {
    const testEngine = await setup(searchModel({ "root.1": 0.9 }));
    const first = await testEngine.engine.invoke("reasoning_mcts", {
      content: "root",
      iterations: 1,
      branching_factor: 1,
    });
    const result = await testEngine.engine.invoke("reasoning_mcts", {
      operation: "auto_backtrack",
      session_id: first.session_id,
    });
    expect(result.quality_history).toEqual([{ step: 1, thought_id: first.thought_id, quality: 0.9 }]);
    expect((result.backtrack_suggestion as { should_backtrack: boolean }).should_backtrack).toBe(false);
  });
});

import { timelineTool } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";

const { setup } = useTestEngines();

type OutputBranch = { id: string; label: string; content: string; parent_branch_id: string | null; status: string };
const branchesOf = (result: Record<string, unknown>) => result.branches as OutputBranch[];

/** A timeline with main -> fast, main -> slow, fast -> faster (contents with known word overlap). */
async function buildTimeline(testEngine: TestEngine) {
  const { engine } = testEngine;
  const created = await engine.invoke("reasoning_timeline", {
    operation: "create",
    content: "We launch in March.",
    metadata: { owner: "pm" },
  });
  const timelineId = created.timeline_id as string;
  const mainId = created.branch_id as string;
  const fast = await engine.invoke("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    content: "We launch in January with fewer features.",
    label: "fast",
  });
  const faster = await engine.invoke("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    parent_branch_id: fast.branch_id,
    content: "We launch in December.",
    label: "faster",
  });
  const slow = await engine.invoke("reasoning_timeline", {
    operation: "branch",
    timeline_id: timelineId,
    parent_branch_id: mainId,
    content: "We launch in June with every feature.",
    label: "slow",
  });
  return {
    timelineId,
    sessionId: created.session_id as string,
    mainId,
    fastId: fast.branch_id as string,
    fasterId: faster.branch_id as string,
    slowId: slow.branch_id as string,
  };
}

describe("reasoning_timeline create and branch", () => {
  it("creates a timeline with its main branch and forks from the named parent, without a model when content is given", async () => {
    const testEngine = await setup(bySchemaName({}));
    const ids = await buildTimeline(testEngine);
    expect(testEngine.model.calls).toHaveLength(0);
    const timeline = await testEngine.store.timelines.getTimeline(ids.timelineId);
    expect(timeline).toMatchObject({
      session_id: ids.sessionId,
      current_branch_id: ids.slowId,
      metadata: { owner: "pm" },
    });
    const branches = await testEngine.store.timelines.listBranches(ids.timelineId);
    expect(branches.map((branch) => [branch.label, branch.parent_branch_id])).toEqual([
      ["main", null],
      ["fast", ids.mainId],
      ["faster", ids.fastId],
      ["slow", ids.mainId],
    ]);
    expect(await testEngine.store.sessions.get(ids.sessionId)).toMatchObject({ mode: "timeline" });
  });

  it("forks a branch without parent_branch_id from the timeline's root, not from the last branch created", async () => {
    const { engine, store } = await setup(bySchemaName({}));
    const created = await engine.invoke("reasoning_timeline", { operation: "create", content: "We launch in March." });
    const timelineId = created.timeline_id as string;
    for (const content of ["Launch early.", "Launch late.", "Do not launch."]) {
      await engine.invoke("reasoning_timeline", { operation: "branch", timeline_id: timelineId, content });
    }
    const branches = await store.timelines.listBranches(timelineId);
    expect(branches.slice(1).map((branch) => branch.parent_branch_id)).toEqual([
      created.branch_id,
      created.branch_id,
      created.branch_id,
    ]);
  });

  it("asks the model for the alternative path when branch has no content, showing the path so far", async () => {
    const testEngine = await setup(
      bySchemaName({ timeline_branch: { label: "delay", content: "Supply issues push launch to May." } }),
    );
    const ids = await buildTimeline(testEngine);
    const result = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "branch",
      timeline_id: ids.timelineId,
      parent_branch_id: ids.fastId,
    });
    expect(timelineTool.outputSchema.parse(result)).toBeTruthy();
    const created = branchesOf(result).find((branch) => branch.id === result.branch_id);
    expect(created).toMatchObject({
      label: "delay",
      content: "Supply issues push launch to May.",
      parent_branch_id: ids.fastId,
      status: "active",
    });
    const prompt = testEngine.model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain("Start (main): We launch in March.");
    expect(prompt).toContain("Then (fast): We launch in January");
    expect(prompt).toContain("faster: We launch in December.");
    // A caller label wins over the model's.
    const labelled = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "branch",
      timeline_id: ids.timelineId,
      label: "mine",
    });
    expect(branchesOf(labelled).at(-1)?.label).toBe("mine");
  });

  it("names bad or unknown fields and writes nothing", async () => {
    const testEngine = await setup(bySchemaName({}));
    const missing = await errorOf(testEngine.engine.invoke("reasoning_timeline", { operation: "merge" }));
    expect(missing.code).toBe("INVALID_INPUT");
    expect(missing.issues.map((issue) => issue.field).sort()).toEqual([
      "source_branch_id",
      "target_branch_id",
      "timeline_id",
    ]);
    const same = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", {
        operation: "merge",
        timeline_id: "t",
        source_branch_id: "b",
        target_branch_id: "b",
      }),
    );
    expect(same.issues[0]?.field).toBe("target_branch_id");
    const strategy = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", { operation: "create", content: "x", merge_strategy: "average" }),
    );
    expect(strategy.issues[0]?.field).toBe("merge_strategy");
    const single = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", { operation: "compare", timeline_id: "t", branch_ids: ["a"] }),
    );
    expect(single.issues[0]?.field).toBe("branch_ids");
    expect(await testEngine.store.sessions.list({ limit: 5 })).toHaveLength(0);

    const ids = await buildTimeline(testEngine);
    const unknownTimeline = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", { operation: "branch", timeline_id: "tl_nope", content: "x" }),
    );
    expect(unknownTimeline.code).toBe("NOT_FOUND");
    expect(unknownTimeline.issues[0]?.field).toBe("timeline_id");
    const unknownParent = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", {
        operation: "branch",
        timeline_id: ids.timelineId,
        parent_branch_id: "tb_nope",
        content: "x",
      }),
    );
    expect(unknownParent.issues[0]?.field).toBe("parent_branch_id");
    const wrongSession = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", {
        operation: "branch",
        timeline_id: ids.timelineId,
        session_id: "ses_other",
        content: "x",
      }),
    );
    expect(wrongSession.code).toBe("INVALID_INPUT");
    expect(wrongSession.issues[0]?.field).toBe("session_id");
    const unknownCompared = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", {
        operation: "compare",
        timeline_id: ids.timelineId,
        branch_ids: [ids.fastId, "tb_nope"],
      }),
    );
    expect(unknownCompared.issues[0]?.field).toBe("branch_ids.1");
    expect(testEngine.model.calls).toHaveLength(0);
  });
});

describe("reasoning_timeline compare", () => {
  const judged = (scores: Record<string, number>) => ({
    divergence_points: ["The launch date moves"],
    assessments: Object.fromEntries(
      Object.entries(scores).map(([id, quality]) => [id, { quality, assessment: `assessment of ${id}` }]),
    ),
    convergence_opportunities: ["Ship a beta in January, GA in June"],
  });

  it("computes fork points and overlap in code and takes per-branch quality from the model", async () => {
    let answer: unknown;
    const testEngine = await setup(bySchemaName({ timeline_compare: () => answer }));
    const ids = await buildTimeline(testEngine);
    answer = judged({ [ids.fasterId]: 0.4, [ids.slowId]: 0.7 });
    const result = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "compare",
      timeline_id: ids.timelineId,
      branch_ids: [ids.fasterId, ids.slowId],
    });
    expect(timelineTool.outputSchema.parse(result)).toBeTruthy();
    const comparison = result.comparison as {
      pairs: Array<{
        branch_ids: string[];
        fork_branch_id: string;
        steps_since_fork: number[];
        content_overlap: number;
      }>;
      quality_differences: {
        best_branch_id: string;
        spread: number;
        by_branch: Array<{ branch_id: string; quality: number }>;
      };
      divergence_points: string[];
      convergence_opportunities: string[];
    };
    // {we, launch, in, december} vs {we, launch, in, june, with, every, feature}: 3 shared of 8.
    expect(comparison.pairs).toEqual([
      {
        branch_ids: [ids.fasterId, ids.slowId],
        fork_branch_id: ids.mainId,
        steps_since_fork: [2, 1],
        content_overlap: 3 / 8,
      },
    ]);
    expect(comparison.quality_differences.best_branch_id).toBe(ids.slowId);
    expect(comparison.quality_differences.spread).toBeCloseTo(0.3, 12);
    expect(comparison.divergence_points[0]).toBe(
      '"faster" and "slow" fork at "main" (2 and 1 branch step(s) after it); their contents share 38% of their words.',
    );
    expect(comparison.divergence_points).toContain("The launch date moves");
    expect(comparison.convergence_opportunities).toEqual(["Ship a beta in January, GA in June"]);
    const prompt = testEngine.model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain(`[${ids.fasterId}] faster:`);
    expect(prompt).toContain("share 38% of their words");
  });

  it("compares every active branch when none are named; ties go to the earlier branch", async () => {
    let answer: unknown;
    const testEngine = await setup(bySchemaName({ timeline_compare: () => answer }));
    const ids = await buildTimeline(testEngine);
    answer = judged({ [ids.mainId]: 0.5, [ids.fastId]: 0.8, [ids.fasterId]: 0.8, [ids.slowId]: 0.2 });
    const result = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "compare",
      timeline_id: ids.timelineId,
    });
    const comparison = result.comparison as {
      pairs: unknown[];
      quality_differences: { best_branch_id: string; spread: number };
    };
    expect(comparison.pairs).toHaveLength(6);
    expect(comparison.quality_differences.best_branch_id).toBe(ids.fastId);
    expect(comparison.quality_differences.spread).toBeCloseTo(0.6, 12);
  });

  it("rejects a model answer that skips a branch (after one repair round) and needs two active branches", async () => {
    let answer: unknown;
    const testEngine = await setup(bySchemaName({ timeline_compare: () => answer }));
    const ids = await buildTimeline(testEngine);
    answer = judged({ [ids.fasterId]: 0.4 });
    const error = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", {
        operation: "compare",
        timeline_id: ids.timelineId,
        branch_ids: [ids.fasterId, ids.slowId],
      }),
    );
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(testEngine.model.calls).toHaveLength(2);

    const lonely = await testEngine.engine.invoke("reasoning_timeline", { operation: "create", content: "alone" });
    const conflict = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", { operation: "compare", timeline_id: lonely.timeline_id }),
    );
    expect(conflict.code).toBe("CONFLICT");
    expect(conflict.hint).toContain("branch");
  });
});

describe("reasoning_timeline merge", () => {
  it("interleaves in code without a model, updates the target, marks the source merged and records the merge", async () => {
    const testEngine = await setup(bySchemaName({}));
    const created = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "create",
      content: "Kickoff.\n\nDesign review.\n\nBuild.",
    });
    const timelineId = created.timeline_id as string;
    const target = created.branch_id as string;
    const source = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "branch",
      timeline_id: timelineId,
      content: "Kickoff.\n\nPrototype.\n\nUser test.",
      label: "lean",
    });
    const result = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "merge",
      timeline_id: timelineId,
      source_branch_id: source.branch_id,
      target_branch_id: target,
      merge_strategy: "interleave",
    });
    expect(testEngine.model.calls).toHaveLength(0);
    expect(result.merged_content).toBe("Kickoff.\n\nDesign review.\n\nPrototype.\n\nBuild.\n\nUser test.");
    expect(result.conflicts).toEqual([]);
    expect(result.branch_id).toBe(target);
    const branches = await testEngine.store.timelines.listBranches(timelineId);
    expect(branches.map((branch) => [branch.status, branch.merged_into_id])).toEqual([
      ["active", null],
      ["merged", target],
    ]);
    expect(branches[0]?.content).toBe(result.merged_content);
    const [merge] = await testEngine.store.timelines.listMerges(timelineId);
    expect(merge).toMatchObject({
      strategy: "interleave",
      target_content_before: "Kickoff.\n\nDesign review.\n\nBuild.",
      merged_content: result.merged_content,
    });
    expect((await testEngine.store.timelines.getTimeline(timelineId)).current_branch_id).toBe(target);
    const thoughts = await testEngine.store.thoughts.listBySession(created.session_id as string);
    expect(thoughts.map((thought) => [thought.mode, thought.content])).toEqual([["timeline", result.merged_content]]);

    const again = await errorOf(
      testEngine.engine.invoke("reasoning_timeline", {
        operation: "merge",
        timeline_id: timelineId,
        source_branch_id: source.branch_id,
        target_branch_id: target,
      }),
    );
    expect(again.code).toBe("CONFLICT");
    expect(again.issues[0]?.field).toBe("source_branch_id");
    expect(again.hint).toContain(target);
  });

  it("synthesizes with the model, keeping the conflicts it resolved", async () => {
    const testEngine = await setup(
      bySchemaName({
        timeline_merge_synthesize: {
          merged_content: "Beta in January, GA in June.",
          conflicts: [{ source: "January", target: "June", kept: "both" }],
        },
      }),
    );
    const ids = await buildTimeline(testEngine);
    const result = await testEngine.engine.invoke("reasoning_timeline", {
      operation: "merge",
      timeline_id: ids.timelineId,
      source_branch_id: ids.fastId,
      target_branch_id: ids.slowId,
    });
    expect(result).toMatchObject({
      merged_content: "Beta in January, GA in June.",
      merge_strategy: "synthesize",
      conflicts: [{ source: "January", target: "June", kept: "both" }],
    });
    const prompt = testEngine.model.calls[0]?.messages[0]?.content ?? "";
    expect(prompt).toContain('SOURCE branch "fast"');
    expect(prompt).toContain('TARGET branch "slow"');
    expect((await testEngine.store.timelines.getBranch(ids.timelineId, ids.slowId, "x")).content).toBe(
      "Beta in January, GA in June.",
    );
  });

  it.each([
    ["prefer_source", "source", "target"],
    ["prefer_target", "target", "source"],
  ] as const)("%s: the schema only lets the preferred side win a conflict", async (strategy, winner, loser) => {
    let kept: string = loser;
    const testEngine = await setup(
      bySchemaName({
        [`timeline_merge_${strategy}`]: () => ({
          merged_content: "merged",
          conflicts: [{ source: "Jan", target: "Jun", kept }],
        }),
      }),
    );
    const ids = await buildTimeline(testEngine);
    const args = {
      operation: "merge",
      timeline_id: ids.timelineId,
      source_branch_id: ids.fastId,
      target_branch_id: ids.slowId,
      merge_strategy: strategy,
    };
    const error = await errorOf(testEngine.engine.invoke("reasoning_timeline", args));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    expect((await testEngine.store.timelines.getBranch(ids.timelineId, ids.fastId, "x")).status).toBe("active");
    expect(await testEngine.store.timelines.listMerges(ids.timelineId)).toHaveLength(0);
    expect(testEngine.model.calls[0]?.system).toContain(`the ${winner.toUpperCase()} branch's version wins`);

    kept = winner;
    const result = await testEngine.engine.invoke("reasoning_timeline", args);
    expect(result).toMatchObject({ merged_content: "merged", merge_strategy: strategy, conflicts: [{ kept: winner }] });
  });
});

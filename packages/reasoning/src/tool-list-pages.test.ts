import { checkpointTool, graphTool, timelineTool } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { bySchemaName, errorOf, useTestEngines } from "./test-support.ts";

// Lists that grow with a session come back a page at a time (limit, offset, page.next_offset), like session reads.

const { setup } = useTestEngines();

describe("paged tool lists", () => {
  it("reasoning_checkpoint list: pages of 100 by default, every checkpoint once when walked, the total in each page", async () => {
    const { engine } = await setup(
      bySchemaName({ linear_continuation: { content: "Next.", confidence: 0.5, next_step: "Go on." } }),
    );
    const sessionId = (await engine.invoke("reasoning_linear", { content: "A session with many checkpoints." }))
      .session_id as string;
    const created: string[] = [];
    for (let index = 0; index < 230; index += 1) {
      created.push(
        (
          await engine.invoke("reasoning_checkpoint", {
            operation: "create",
            session_id: sessionId,
            name: `cp ${index}`,
          })
        ).checkpoint_id as string,
      );
    }
    const first = checkpointTool.outputSchema.parse(
      await engine.invoke("reasoning_checkpoint", { operation: "list", session_id: sessionId }),
    );
    expect(first.checkpoints).toHaveLength(100);
    expect(first.page).toEqual({ offset: 0, limit: 100, total: 230, next_offset: 100 });
    const seen: string[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page = checkpointTool.outputSchema.parse(
        await engine.invoke("reasoning_checkpoint", { operation: "list", session_id: sessionId, limit: "70", offset }),
      );
      seen.push(...(page.checkpoints ?? []).map((checkpoint) => checkpoint.id));
      expect(page.page?.total).toBe(230);
      offset = page.page?.next_offset ?? null;
    }
    // Every checkpoint exactly once (the test clock gives them one time, so they are ordered by id).
    expect(seen).toHaveLength(230);
    expect([...seen].sort()).toEqual([...created].sort());
    const past = checkpointTool.outputSchema.parse(
      await engine.invoke("reasoning_checkpoint", { operation: "list", session_id: sessionId, offset: 500 }),
    );
    expect([past.checkpoints, past.page]).toEqual([[], { offset: 500, limit: 100, total: 230, next_offset: null }]);
    // Bad windows name the field; a missing session is NOT_FOUND whatever the window.
    expect(
      (
        await errorOf(engine.invoke("reasoning_checkpoint", { operation: "list", session_id: sessionId, limit: 1001 }))
      ).issues.map((issue) => issue.field),
    ).toEqual(["limit"]);
    expect(
      (
        await errorOf(engine.invoke("reasoning_checkpoint", { operation: "list", session_id: sessionId, offset: -1 }))
      ).issues.map((issue) => issue.field),
    ).toEqual(["offset"]);
    expect(
      (
        await errorOf(
          engine.invoke("reasoning_checkpoint", { operation: "list", session_id: "ses_missing", offset: 300 }),
        )
      ).code,
    ).toBe("NOT_FOUND");
    const empty = (await engine.invoke("reasoning_linear", { content: "No checkpoints here." })).session_id as string;
    expect(
      checkpointTool.outputSchema.parse(
        await engine.invoke("reasoning_checkpoint", { operation: "list", session_id: empty }),
      ).page,
    ).toEqual({ offset: 0, limit: 100, total: 0, next_offset: null });
  });

  it("reasoning_timeline: branch and merge return a page of the timeline's branches", async () => {
    const { engine } = await setup(bySchemaName({}));
    const created = timelineTool.outputSchema.parse(
      await engine.invoke("reasoning_timeline", { operation: "create", content: "We launch in March." }),
    );
    expect(created.page).toEqual({ offset: 0, limit: 100, total: 1, next_offset: null });
    let last = created;
    for (let index = 0; index < 6; index += 1) {
      last = timelineTool.outputSchema.parse(
        await engine.invoke("reasoning_timeline", {
          operation: "branch",
          timeline_id: created.timeline_id,
          content: `Alternative ${index}.`,
          label: `alt ${index}`,
          limit: 3,
          offset: 2,
        }),
      );
    }
    expect(last.branches?.map((branch) => branch.label)).toEqual(["alt 1", "alt 2", "alt 3"]);
    expect(last.page).toEqual({ offset: 2, limit: 3, total: 7, next_offset: 5 });
    const merged = timelineTool.outputSchema.parse(
      await engine.invoke("reasoning_timeline", {
        operation: "merge",
        timeline_id: created.timeline_id,
        source_branch_id: last.branch_id,
        target_branch_id: created.branch_id,
        merge_strategy: "interleave",
        limit: 2,
        offset: 6,
      }),
    );
    expect(merged.branches?.map((branch) => branch.label)).toEqual(["alt 5"]);
    expect(merged.page).toEqual({ offset: 6, limit: 2, total: 7, next_offset: null });
  });

  it("reasoning_graph state: a page of the active nodes by depth, the counts for the whole graph", async () => {
    const criteria = { relevance: 0.6, validity: 0.6, depth: 0.6, novelty: 0.6 };
    const { engine } = await setup(
      bySchemaName({ graph_continuation: (index: number) => ({ content: `continuation ${index}`, criteria }) }),
    );
    const init = await engine.invoke("reasoning_graph", { operation: "init", content: "How do we cut build times?" });
    const sessionId = init.session_id as string;
    await engine.invoke("reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: init.node_id,
      k: 5,
    });
    const state = graphTool.outputSchema.parse(
      await engine.invoke("reasoning_graph", { operation: "state", session_id: sessionId, limit: 4, offset: 2 }),
    );
    expect(state.nodes?.map((node) => node.depth)).toEqual([1, 1, 1, 1]);
    expect(state.page).toEqual({ offset: 2, limit: 4, total: 6, next_offset: null });
    expect(state.state?.active_nodes).toBe(6);
    const whole = graphTool.outputSchema.parse(
      await engine.invoke("reasoning_graph", { operation: "state", session_id: sessionId }),
    );
    expect(whole.nodes).toHaveLength(6);
    expect(whole.page).toEqual({ offset: 0, limit: 200, total: 6, next_offset: null });
    expect(whole.edges).toHaveLength(5);
  });
});

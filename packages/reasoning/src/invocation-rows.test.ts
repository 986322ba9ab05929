import { needsCompletionSchema } from "@deliberate/contracts";
import { hostModelRouter } from "@deliberate/engine";
import { describe, expect, it } from "vitest";
import { bySchemaName, useTestEngines } from "./test-support.ts";

/** What the invocation rows record for the reasoning tools: what metrics and self-improvement read. */

const { setup } = useTestEngines();
const treeAnswer = {
  branches: [
    { content: "a", score: 0.5 },
    { content: "b", score: 0.4 },
  ],
  recommendation: "a",
};

describe("invocation rows", () => {
  it("record the operation a call actually ran when it was left to its default", async () => {
    const { engine, store } = await setup(bySchemaName({ tree_branches: treeAnswer }));
    await engine.invoke("reasoning_tree", { content: "Speed up the build" });
    await engine.invoke("reasoning_decision", {
      options: ["A", "B"],
      criteria: [{ name: "cost", weight: 1 }],
      scores: [[1], [2]],
    });
    await engine.invoke("reasoning_evidence", {
      claim: "It rebooted",
      evidence: [{ content: "syslog", source_type: "primary", corroborated_by: [], chain_of_custody: "intact" }],
    });
    const rows = await store.invocations.list();
    expect(Object.fromEntries(rows.map((row) => [row.tool, row.operation]))).toEqual({
      reasoning_tree: "create",
      reasoning_decision: "weighted",
      reasoning_evidence: "assess",
    });
  });

  it("count a host answer that fails its schema as a model-output failure of the host provider", async () => {
    const { engine } = await setup([], { router: hostModelRouter });
    const step = needsCompletionSchema.parse(await engine.invoke("reasoning_linear", { content: "Add a cache" }));
    const rejected = await engine
      .invoke("reasoning_submit", {
        resume_token: step.resume_token,
        answers: [{ prompt_id: step.prompts[0]?.id, answer: { content: "" } }],
      })
      .catch((error: unknown) => error);
    expect(rejected).toMatchObject({ code: "INVALID_INPUT" });
    const summary = await engine.invoke("reasoning_metrics", { query: "summary" });
    expect(summary).toMatchObject({ summary: { total_calls: 1, success_count: 0, model_calls: 1 } });
    const fallbacks = await engine.invoke("reasoning_metrics", { query: "fallbacks" });
    expect(JSON.stringify(fallbacks)).toContain("MODEL_OUTPUT_INVALID");
  });
});

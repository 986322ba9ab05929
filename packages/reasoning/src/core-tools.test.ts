import { checkpointTool, DeliberateError, linearTool, reflectionTool, treeTool } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { bySchemaName, errorOf, useTestEngines } from "./test-support.ts";

const linearAnswer = { content: "Therefore cache invalidation is the risk.", confidence: 0.7, next_step: "Check TTLs" };
const treeAnswer = {
  branches: [
    { content: "Path A: cache at the edge", score: 0.4 },
    { content: "Path B: cache in the service", score: 0.9 },
    { content: "Path C: no cache", score: 0.2 },
  ],
  recommendation: "Start with B",
};
import { historyHeading } from "./session-history.ts";

const { setup } = useTestEngines();

describe("reasoning_linear", () => {
  it("continues a thought, persists it, and feeds the session's history to the next call", async () => {
    const { engine, model, store } = await setup(bySchemaName({ linear_continuation: linearAnswer }));
    const first = await engine.invoke("reasoning_linear", { content: "We should add a cache." });
    expect(linearTool.outputSchema.parse(first)).toEqual({
      thought_id: first.thought_id,
      session_id: first.session_id,
      ...linearAnswer,
    });

    await engine.invoke("reasoning_linear", {
      content: "What about consistency?",
      session_id: first.session_id,
      confidence: "0.5",
    });
    // The history goes as separate messages before the prompt, the last one marked for the prompt cache.
    const messages = model.calls[1]?.messages ?? [];
    expect(messages.map((message) => message.content)).toEqual([
      historyHeading,
      "Step 1 [input]: We should add a cache.",
      `Step 2 [linear]: ${linearAnswer.content}`,
      expect.stringContaining("What about consistency?"),
    ]);
    expect(messages.map((message) => message.cache === true)).toEqual([false, false, true, false]);
    expect(messages.at(-1)?.content).toContain("0.5");

    const record = await store.thoughts.listBySession(first.session_id as string);
    expect(record.map((thought) => thought.mode)).toEqual(["input", "linear", "input", "linear"]);
    const invocations = await store.invocations.list({ tool: "reasoning_linear" });
    expect(invocations).toHaveLength(2);
    expect(invocations[0]).toMatchObject({ success: true, model_calls: 1, provider: "scripted", quality: 0.7 });
    expect(invocations[0]?.input_tokens).toBeGreaterThan(0);
  });

  it("rejects bad input naming the field and writes nothing", async () => {
    const { engine, model, store } = await setup(bySchemaName({ linear_continuation: linearAnswer }));
    const error = await errorOf(engine.invoke("reasoning_linear", { content: "  ", confidence: 2 }));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["confidence", "content"]);
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
    expect(await store.invocations.list()).toHaveLength(0);
  });

  it("refuses an unknown session before asking the model", async () => {
    const { engine, model } = await setup(bySchemaName({ linear_continuation: linearAnswer }));
    const error = await errorOf(engine.invoke("reasoning_linear", { content: "x", session_id: "ses_missing" }));
    expect(error.code).toBe("NOT_FOUND");
    expect(error.issues[0]?.field).toBe("session_id");
    expect(model.calls).toHaveLength(0);
  });

  it("leaves nothing half-written when the model fails, and records the failure", async () => {
    const { engine, store } = await setup(() => {
      throw new DeliberateError({ code: "PROVIDER_UNAVAILABLE", message: "upstream 503", retryable: true });
    });
    const error = await errorOf(engine.invoke("reasoning_linear", { content: "x" }));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
    const [row] = await store.invocations.list();
    expect(row).toMatchObject({ tool: "reasoning_linear", success: false, error_code: "PROVIDER_UNAVAILABLE" });
  });
});

// U+0000 on every dialect (this file's engines run on Postgres with DELIBERATE_TEST_ENGINE_DIALECT=postgres).
describe("text holding U+0000", () => {
  it("is refused in a call's input, naming the field, and nothing is written", async () => {
    const { engine, model, store } = await setup(bySchemaName({ linear_continuation: linearAnswer }));
    const linear = await errorOf(engine.invoke("reasoning_linear", { content: "a\u0000b" }));
    expect(linear.code).toBe("INVALID_INPUT");
    expect(linear.issues).toEqual([{ field: "content", message: expect.stringContaining("U+0000") }]);
    const decision = await errorOf(
      engine.invoke("reasoning_decision", { question: "Which\u0000?", options: ["a", "b\u0000"] }),
    );
    expect(decision.code).toBe("INVALID_INPUT");
    expect(decision.issues.map((issue) => issue.field)).toEqual(["question", "options.1"]);
    expect(model.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
    expect(await store.invocations.list()).toHaveLength(0);

    const session = (await engine.invoke("reasoning_linear", { content: "A session to checkpoint." }))
      .session_id as string;
    const checkpoint = await errorOf(
      engine.invoke("reasoning_checkpoint", { operation: "create", session_id: session, name: "before\u0000" }),
    );
    expect(checkpoint.issues.map((issue) => issue.field)).toEqual(["name"]);
    expect(
      checkpointTool.outputSchema.parse(
        await engine.invoke("reasoning_checkpoint", { operation: "list", session_id: session }),
      ).checkpoints,
    ).toEqual([]);
    // The linear call and the list: the refused create left no row.
    expect((await store.invocations.list()).map((row) => `${row.tool} ${row.operation ?? ""}`).sort()).toEqual([
      "reasoning_checkpoint list",
      "reasoning_linear ",
    ]);
  });

  it("in a model's answer is stored as U+FFFD instead of failing the call", async () => {
    const { engine, store } = await setup(
      bySchemaName({ linear_continuation: { ...linearAnswer, content: "risk\u0000 ahead" } }),
    );
    const result = await engine.invoke("reasoning_linear", { content: "We should add a cache." });
    const thoughts = await store.thoughts.listBySession(result.session_id as string);
    expect(thoughts.map((thought) => thought.content)).toEqual(["We should add a cache.", "risk\uFFFD ahead"]);
  });

  it("in a provider's error message is stored as U+FFFD, and the call fails with the provider's error", async () => {
    const { engine, store } = await setup(() => {
      throw new DeliberateError({ code: "PROVIDER_UNAVAILABLE", message: "upstream said \u0000", retryable: true });
    });
    const error = await errorOf(engine.invoke("reasoning_linear", { content: "x" }));
    expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    const [row] = await store.invocations.list();
    expect(row).toMatchObject({
      success: false,
      error_code: "PROVIDER_UNAVAILABLE",
      error_message: expect.stringContaining("upstream said \uFFFD"),
    });
  });
});

describe("reasoning_tree", () => {
  it("creates branches, lists them with a recommendation, focuses and completes", async () => {
    const { engine } = await setup(bySchemaName({ tree_branches: treeAnswer, linear_continuation: linearAnswer }));
    const created = treeTool.outputSchema.parse(
      await engine.invoke("reasoning_tree", { content: "How to speed up the API?", num_branches: "3" }),
    );
    expect(created.branches?.map((branch) => branch.score)).toEqual([0.4, 0.9, 0.2]);
    const sessionId = created.session_id;
    const best = created.branches?.[1]?.id as string;

    const listed = treeTool.outputSchema.parse(
      await engine.invoke("reasoning_tree", { operation: "list", session_id: sessionId }),
    );
    expect(listed.branches).toHaveLength(4); // root + 3
    expect(listed.recommendation).toContain(best);

    const focused = await engine.invoke("reasoning_tree", {
      operation: "focus",
      session_id: sessionId,
      branch_id: best,
    });
    expect(focused.branch_id).toBe(best);
    const completed = treeTool.outputSchema.parse(
      await engine.invoke("reasoning_tree", {
        operation: "complete",
        session_id: sessionId,
        branch_id: best,
        completed: "false",
      }),
    );
    expect(completed.branches?.find((branch) => branch.id === best)?.status).toBe("abandoned");

    const refocus = await errorOf(
      engine.invoke("reasoning_tree", { operation: "focus", session_id: sessionId, branch_id: best }),
    );
    expect(refocus.code).toBe("CONFLICT");
    const recomplete = await errorOf(
      engine.invoke("reasoning_tree", {
        operation: "complete",
        session_id: sessionId,
        branch_id: best,
        completed: true,
      }),
    );
    expect(recomplete).toMatchObject({
      code: "CONFLICT",
      issues: [{ field: "branch_id", message: "branch is abandoned" }],
    });
    const missing = await errorOf(
      engine.invoke("reasoning_tree", { operation: "focus", session_id: sessionId, branch_id: "br_nope" }),
    );
    expect(missing.issues[0]?.field).toBe("branch_id");
  });

  it("names the fields an operation needs", async () => {
    const { engine } = await setup(bySchemaName({}));
    const error = await errorOf(engine.invoke("reasoning_tree", { operation: "complete", num_branches: 9 }));
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(["branch_id", "num_branches", "session_id"]);
    expect(error.message).toContain("branch_id is required for operation 'complete'");
  });
});

describe("reasoning_divergent", () => {
  it("asks for perspectives concurrently under distinct lenses, then synthesises", async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const { engine, model } = await setup({
      latencyMs: 5,
      answer: (options: { schemaName?: string }, index: number) => {
        if (options.schemaName === "divergent_perspective") {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          setTimeout(() => {
            inFlight -= 1;
          }, 1);
          return { viewpoint: `view ${index}`, content: `idea ${index}`, novelty_score: 0.5 };
        }
        return { challenged_assumptions: ["users want speed"], synthesis: "Combine them" };
      },
    });
    const progress: number[] = [];
    const result = await engine.invoke(
      "reasoning_divergent",
      { content: "Rethink onboarding", num_perspectives: 4, challenge_assumptions: true },
      {
        progress: (update) => progress.push(update.progress),
      },
    );
    expect(result.perspectives).toHaveLength(4);
    expect(result.challenged_assumptions).toEqual(["users want speed"]);
    const lenses = model.calls
      .filter((call) => call.schemaName === "divergent_perspective")
      .map((call) => call.messages[0]?.content);
    expect(new Set(lenses).size).toBe(4);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(5);
  });
});

describe("reasoning_reflection", () => {
  const critique = (level: number, name: string) => ({
    scores: { logic: level, evidence: level - 0.2, completeness: level, clarity: level + 0.1 },
    strengths: [`${name} is clear`],
    weaknesses: [`${name} has thin evidence`],
    recommendations: [`cite data in ${name}`],
  });
  const revision = (text: string) => ({ refined_content: text, changes: ["added data"] });

  it("critiques each draft in a separate call, revises with the critique, and returns the final draft's assessment", async () => {
    // Quality = 0.35 logic + 0.25 evidence + 0.2 completeness + 0.2 clarity = level - 0.03.
    const { engine, model } = await setup([
      critique(0.5, "draft"),
      revision("second draft"),
      critique(0.7, "second"),
      revision("third draft"),
      critique(0.9, "third"),
    ]);
    const result = reflectionTool.outputSchema.parse(
      await engine.invoke("reasoning_reflection", { content: "Draft", quality_threshold: 0.8 }),
    );
    expect(model.calls.map((call) => call.schemaName)).toEqual([
      "reflection_critique",
      "reflection_revision",
      "reflection_critique",
      "reflection_revision",
      "reflection_critique",
    ]);
    expect(result.iterations_used).toBe(2);
    expect(result.refined_content).toBe("third draft");
    // The assessment is the critique of the final draft, and its quality is computed from the rubric in code.
    expect(result.quality_score).toBeCloseTo(0.87, 10);
    expect(result.rubric_scores).toEqual(critique(0.9, "third").scores);
    expect(result).toMatchObject({
      strengths: ["third is clear"],
      weaknesses: ["third has thin evidence"],
      recommendations: ["cite data in third"],
    });
    // Each revision sees the draft and its critique; each critique sees only its draft.
    const revisionPrompt = model.calls[1]?.messages.at(-1)?.content ?? "";
    expect(revisionPrompt).toContain("Draft:\nDraft");
    expect(revisionPrompt).toContain("draft has thin evidence");
    expect(revisionPrompt).toContain("cite data in draft");
    expect(model.calls[2]?.messages.at(-1)?.content).toBe("Draft to critique:\nsecond draft");
    expect(model.calls[3]?.messages.at(-1)?.content).toContain("second has thin evidence");
  });

  it("stops when a draft meets the threshold, and revises at most max_iterations times", async () => {
    const good = await setup([critique(0.85, "draft")]);
    const kept = reflectionTool.outputSchema.parse(
      await good.engine.invoke("reasoning_reflection", { content: "Draft", quality_threshold: 0.8 }),
    );
    expect(kept).toMatchObject({ iterations_used: 0, refined_content: "Draft" });
    const stubborn = await setup([critique(0.3, "a"), revision("b"), critique(0.3, "b")]);
    const capped = reflectionTool.outputSchema.parse(
      await stubborn.engine.invoke("reasoning_reflection", { content: "a", max_iterations: 1, quality_threshold: 0.9 }),
    );
    expect(capped).toMatchObject({ iterations_used: 1, refined_content: "b", weaknesses: ["b has thin evidence"] });
    expect(stubborn.model.calls).toHaveLength(3);
  });

  it("evaluates a whole session and refuses an empty or unknown one", async () => {
    const { engine } = await setup(
      bySchemaName({
        linear_continuation: linearAnswer,
        reflection_session_evaluation: {
          quality_score: 0.6,
          coherence_score: 0.8,
          strengths: ["a"],
          weaknesses: ["b"],
          recommendations: ["c"],
        },
      }),
    );
    const first = await engine.invoke("reasoning_linear", { content: "Step one" });
    const evaluation = await engine.invoke("reasoning_reflection", {
      operation: "evaluate",
      session_id: first.session_id,
    });
    expect(evaluation).toMatchObject({ quality_score: 0.6, coherence_score: 0.8 });
    const missing = await errorOf(engine.invoke("reasoning_reflection", { operation: "evaluate" }));
    expect(missing.issues[0]?.field).toBe("session_id");
  });
});

describe("reasoning_checkpoint", () => {
  it("restores a session: later thoughts are set aside, not deleted, and a new direction is recorded", async () => {
    const { engine, store, model } = await setup(bySchemaName({ linear_continuation: linearAnswer }));
    const first = await engine.invoke("reasoning_linear", { content: "One" });
    const sessionId = first.session_id as string;
    const created = await engine.invoke("reasoning_checkpoint", {
      operation: "create",
      session_id: sessionId,
      name: "before two",
    });
    await engine.invoke("reasoning_linear", { content: "Two", session_id: sessionId });
    const listed = checkpointTool.outputSchema.parse(
      await engine.invoke("reasoning_checkpoint", { operation: "list", session_id: sessionId }),
    );
    expect(listed.checkpoints).toEqual([
      expect.objectContaining({ id: created.checkpoint_id, name: "before two", thought_count: 2 }),
    ]);

    const restored = checkpointTool.outputSchema.parse(
      await engine.invoke("reasoning_checkpoint", {
        operation: "restore",
        session_id: sessionId,
        checkpoint_id: created.checkpoint_id,
        new_direction: "Try three",
      }),
    );
    expect(restored.restored_state).toMatchObject({ thought_count: 2, superseded_thought_count: 2 });
    expect(await store.thoughts.count(sessionId)).toBe(5);
    expect(
      (await store.thoughts.listBySession(sessionId, { activeOnly: true })).map((thought) => thought.content),
    ).toEqual(["One", linearAnswer.content, "Try three"]);
    expect(model.calls).toHaveLength(2);

    const unknown = await errorOf(
      engine.invoke("reasoning_checkpoint", { operation: "restore", session_id: sessionId, checkpoint_id: "cp_x" }),
    );
    expect(unknown.issues[0]?.field).toBe("checkpoint_id");
    const noName = await errorOf(engine.invoke("reasoning_checkpoint", { operation: "create", session_id: sessionId }));
    expect(noName.issues[0]).toEqual({ field: "name", message: "name is required for operation 'create'" });
  });
});

describe("reasoning_auto", () => {
  it("routes to a registered mode and returns that mode's result", async () => {
    const { engine, model } = await setup(
      bySchemaName({
        auto_route: { selected_mode: "tree", confidence: 0.8, rationale: "Several approaches" },
        tree_branches: treeAnswer,
      }),
    );
    const result = await engine.invoke("reasoning_auto", { content: "Compare ways to scale", hints: ["options"] });
    expect(result).toMatchObject({ selected_mode: "tree", confidence: 0.8 });
    expect((result.result as { branches: unknown[] }).branches).toHaveLength(3);
    expect(model.calls[0]?.system).toContain("- tree:");
  });

  it("rejects a route to a mode the model may not choose", async () => {
    const { engine } = await setup(
      bySchemaName({ auto_route: { selected_mode: "astrology", confidence: 1, rationale: "?" } }),
    );
    const error = await errorOf(engine.invoke("reasoning_auto", { content: "x" }));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
  });
});

describe("reasoning_auto progress", () => {
  it("folds the routed tool's progress into one rising count", async () => {
    const { engine } = await setup(
      bySchemaName({
        auto_route: { selected_mode: "divergent", confidence: 0.7, rationale: "open-ended" },
        divergent_perspective: { viewpoint: "v", content: "c", novelty_score: 0.5 },
        divergent_synthesis: { challenged_assumptions: [], synthesis: "s" },
      }),
    );
    const updates: Array<{ progress: number; total?: number }> = [];
    await engine.invoke(
      "reasoning_auto",
      { content: "Rethink onboarding" },
      { progress: (update) => updates.push(update) },
    );
    const values = updates.map((update) => update.progress);
    expect(values[0]).toBe(1);
    expect(values.at(-1)).toBe(2);
    expect(values.every((value, index) => index === 0 || value > (values[index - 1] as number))).toBe(true);
    expect(updates.every((update) => update.total === 2)).toBe(true);
  });
});

describe("checkpoint restore and branches", () => {
  it("closes branches opened after the checkpoint, so the tree no longer recommends undone work", async () => {
    const { engine } = await setup(bySchemaName({ tree_branches: treeAnswer }));
    const first = treeTool.outputSchema.parse(await engine.invoke("reasoning_tree", { content: "Scale the API" }));
    const sessionId = first.session_id;
    const checkpoint = await engine.invoke("reasoning_checkpoint", {
      operation: "create",
      session_id: sessionId,
      name: "one tree",
    });
    const second = treeTool.outputSchema.parse(
      await engine.invoke("reasoning_tree", { content: "Also the database", session_id: sessionId }),
    );
    await engine.invoke("reasoning_checkpoint", {
      operation: "restore",
      session_id: sessionId,
      checkpoint_id: checkpoint.checkpoint_id,
    });

    const listed = treeTool.outputSchema.parse(
      await engine.invoke("reasoning_tree", { operation: "list", session_id: sessionId }),
    );
    const laterIds = new Set([second.branch_id, ...(second.branches ?? []).map((branch) => branch.id)]);
    for (const branch of listed.branches ?? []) {
      expect(branch.status, branch.id).toBe(laterIds.has(branch.id) ? "abandoned" : "active");
    }
    expect(listed.branch_id).toBe(first.branch_id);
    for (const id of laterIds) expect(listed.recommendation).not.toContain(id as string);
    const focus = await errorOf(
      engine.invoke("reasoning_tree", {
        operation: "focus",
        session_id: sessionId,
        branch_id: second.branches?.[0]?.id,
      }),
    );
    expect(focus.code).toBe("CONFLICT");
  });
});

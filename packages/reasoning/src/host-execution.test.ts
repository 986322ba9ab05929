import {
  createHostContext,
  DeliberateError,
  expandNeedsCompletion,
  needsCompletionSchema,
  type NeedsCompletion,
} from "@deliberate/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { bySchemaName, createTestEngine, type TestEngine } from "./test-support.ts";
import { hostModelRouter } from "@deliberate/engine";

const answersBySchema: Record<string, unknown> = {
  linear_continuation: {
    content: "So the cache must be invalidated on write.",
    confidence: 0.8,
    next_step: "List writers",
  },
  divergent_perspective: { viewpoint: "skeptic", content: "Caches hide bugs", novelty_score: 0.6 },
  divergent_synthesis: { challenged_assumptions: [], synthesis: "Cache with care" },
  reflection_critique: {
    scores: { logic: 0.4, evidence: 0.4, completeness: 0.4, clarity: 0.4 },
    strengths: ["s"],
    weaknesses: ["w"],
    recommendations: ["r"],
  },
  reflection_revision: { refined_content: "better", changes: ["c"] },
};

/** Answers every prompt of a needs-completion step as the calling agent would (each prompt names its answer). */
function answer(step: NeedsCompletion) {
  return step.prompts.map((prompt) => ({ prompt_id: prompt.id, answer: answersBySchema[prompt.name] }));
}

const engines: TestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function hostEngine() {
  const testEngine = await createTestEngine([], { router: hostModelRouter });
  engines.push(testEngine);
  return testEngine;
}

async function drive(engine: TestEngine["engine"], tool: string, args: Record<string, unknown>) {
  let result = await engine.invoke(tool, args);
  let rounds = 0;
  while (result.status === "needs_completion") {
    rounds += 1;
    const step = needsCompletionSchema.parse(result);
    result = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers: answer(step) });
  }
  return { result, rounds };
}

describe("host-executed completions", () => {
  it("suspends with the prompt and its schema, then completes with the same result a server-side model gives", async () => {
    const { engine, store } = await hostEngine();
    const step = needsCompletionSchema.parse(await engine.invoke("reasoning_linear", { content: "Add a cache" }));
    expect(step.prompts).toHaveLength(1);
    expect(expandNeedsCompletion(step)[0]?.schema).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["content", "confidence"]),
    });
    expect(step.instructions).toContain("reasoning_submit");
    expect(await store.sessions.list({ limit: 5 })).toHaveLength(0);

    const final = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers: answer(step) });

    const server = await createTestEngine(bySchemaName(answersBySchema));
    engines.push(server);
    const expected = await server.engine.invoke("reasoning_linear", { content: "Add a cache" });
    expect({ ...final, thought_id: "", session_id: "" }).toEqual({ ...expected, thought_id: "", session_id: "" });
    expect(await store.thoughts.count(final.session_id as string)).toBe(2);
    const [row] = await store.invocations.list();
    expect(row).toMatchObject({ tool: "reasoning_linear", provider: "host", success: true, model_calls: 1 });
  });

  it("hands out all independent prompts at once and suspends again for the dependent step", async () => {
    const { engine } = await hostEngine();
    const first = needsCompletionSchema.parse(
      await engine.invoke("reasoning_divergent", { content: "Onboarding", num_perspectives: 3 }),
    );
    expect(first.prompts).toHaveLength(3);
    const known = createHostContext();
    expandNeedsCompletion(first, known);
    const second = needsCompletionSchema.parse(
      await engine.invoke("reasoning_submit", { resume_token: first.resume_token, answers: answer(first) }),
    );
    expect(second.resume_token).toBe(first.resume_token);
    expect(second.prompts).toHaveLength(1);
    expect(expandNeedsCompletion(second, known)[0]?.user).toContain("Caches hide bugs");
    const final = await engine.invoke("reasoning_submit", {
      resume_token: second.resume_token,
      answers: answer(second),
    });
    expect(final).toMatchObject({ synthesis: "Cache with care" });
    expect(final.perspectives).toHaveLength(3);
  });

  it("suspends at each critique and each revision of a reflection", async () => {
    const { engine } = await hostEngine();
    const { result, rounds } = await drive(engine, "reasoning_reflection", {
      content: "Draft",
      max_iterations: 3,
      quality_threshold: 0.9,
    });
    // A critique of the draft, then three times a revision and its critique.
    expect(rounds).toBe(7);
    expect(result).toMatchObject({ iterations_used: 3, refined_content: "better" });
  });

  it("rejects an invalid answer listing the problems, and stays resumable", async () => {
    const { engine } = await hostEngine();
    const step = needsCompletionSchema.parse(await engine.invoke("reasoning_linear", { content: "x" }));
    const promptId = step.prompts[0]?.id as string;
    const error = await engine
      .invoke("reasoning_submit", {
        resume_token: step.resume_token,
        answers: [{ prompt_id: promptId, answer: { content: "y", confidence: 7 } }],
      })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("INVALID_INPUT");
    const fields = DeliberateError.isInstance(error) ? error.issues.map((issue) => issue.field) : [];
    expect(fields).toEqual(expect.arrayContaining(["answers.0.answer.confidence", "answers.0.answer.next_step"]));

    const unknownId = await engine
      .invoke("reasoning_submit", { resume_token: step.resume_token, answers: [{ prompt_id: "p9", answer: {} }] })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(unknownId) && unknownId.issues[0]?.field).toBe("answers.0.prompt_id");

    const final = await engine.invoke("reasoning_submit", {
      resume_token: step.resume_token,
      answers: [{ prompt_id: promptId, answer: JSON.stringify(answersBySchema["linear_continuation"]) }],
    });
    expect(final.confidence).toBe(0.8);
    const again = await engine
      .invoke("reasoning_submit", { resume_token: step.resume_token, answers: answer(step) })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(again) && again.code).toBe("NOT_FOUND");
  });

  it("expires suspended calls after the configured time", async () => {
    const testEngine = await createTestEngine([], { router: hostModelRouter, suspendedCallTtlMs: 1000 });
    engines.push(testEngine);
    const step = needsCompletionSchema.parse(await testEngine.engine.invoke("reasoning_linear", { content: "x" }));
    testEngine.clock.advance(1001);
    const error = await testEngine.engine
      .invoke("reasoning_submit", { resume_token: step.resume_token, answers: answer(step) })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.message).toContain("expired");
  });

  it("runs tools that need no model directly", async () => {
    const { engine } = await hostEngine();
    const { result } = await drive(engine, "reasoning_linear", { content: "x" });
    const checkpoint = await engine.invoke("reasoning_checkpoint", {
      operation: "create",
      session_id: result.session_id,
      name: "a",
    });
    expect(checkpoint.checkpoint_id).toBeTruthy();
  });
});

describe("resuming one suspended call twice at once", () => {
  it("lets exactly one submission replay it; the other gets CONFLICT and nothing is written twice", async () => {
    const { engine, store } = await hostEngine();
    const step = needsCompletionSchema.parse(await engine.invoke("reasoning_linear", { content: "Only once" }));
    const submit = () =>
      engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers: answer(step) }).then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      );
    const outcomes = await Promise.all([submit(), submit()]);
    const succeeded = outcomes.filter((outcome) => "result" in outcome);
    const failed = outcomes.flatMap((outcome) =>
      "error" in outcome && DeliberateError.isInstance(outcome.error) ? [outcome.error.code] : [],
    );
    expect(succeeded).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect(["CONFLICT", "NOT_FOUND"]).toContain(failed[0]);
    const sessions = await store.sessions.list({ limit: 10 });
    expect(sessions).toHaveLength(1);
    expect(await store.thoughts.count(sessions[0]?.id as string)).toBe(2);
  });
});

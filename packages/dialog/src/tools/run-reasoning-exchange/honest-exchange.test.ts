import {
  createHostContext,
  DeliberateError,
  expandNeedsCompletion,
  getReasoningResultOutputSchema,
  needsCompletionSchema,
  runReasoningExchangeOutputSchema,
} from "@deliberate/contracts";
import { hostModelRouter } from "@deliberate/engine";
import type { GenerateOptions } from "@deliberate/providers";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  answerDialogPrompt,
  createDialogTestEngine,
  type DialogScript,
  type DialogTestEngine,
  scriptedDialogResponder,
} from "../../testing/index.ts";

// The exchange tells the truth about how it stopped: who graded, what it spent, which document it returns.

const engines: DialogTestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close().catch(() => undefined)));
});

async function setup(
  script: Parameters<typeof createDialogTestEngine>[0],
  options: Parameters<typeof createDialogTestEngine>[1] = {},
) {
  const testEngine = await createDialogTestEngine(script, options);
  engines.push(testEngine);
  return testEngine;
}

async function errorOf(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

async function count(testEngine: DialogTestEngine, table: string): Promise<number> {
  const result = await sql<{ count: number }>`select count(*) as count from ${sql.table(table)}`.execute(
    testEngine.store.db,
  );
  return Number(result.rows[0]?.count);
}

/** Answers every needs_completion round as the calling agent would (it plays every persona). */
async function driveHost(
  engine: DialogTestEngine["engine"],
  sessionId: string,
  script: DialogScript,
  seen: string[] = [],
) {
  let result = await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
  const known = createHostContext();
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    const answers = expandNeedsCompletion(step, known).map((prompt) => {
      seen.push(prompt.system);
      return {
        prompt_id: prompt.id,
        answer: answerDialogPrompt(
          { schemaName: prompt.name, system: prompt.system, user: prompt.user, jsonSchema: prompt.schema },
          script,
        ),
      };
    });
    result = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers });
  }
  return result;
}

describe("a reviewer never reviews its own document", () => {
  it("custom turns bob produce → alice produce → alice review are refused at start, naming turns and the fix, writing nothing", async () => {
    const testEngine = await setup(scriptedDialogResponder({ reviewerScore: () => 1 }));
    const agents = [
      { name: "bob", role: "Writer", systemPrompt: "You write." },
      { name: "alice", role: "Editor", systemPrompt: "You edit and judge." },
    ];
    const turns = [
      [{ agent: "bob", act: "produce" }],
      [{ agent: "alice", act: "produce" }],
      [{ agent: "alice", act: "review" }],
    ];
    const error = await errorOf(testEngine.engine.invoke("start_reasoning_session", { topic: "t", agents, turns }));
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues).toEqual([
      {
        field: "turns.2.0.agent",
        message:
          "'alice' would review the document it wrote in step 1; a reviewer never reviews its own document: give this review to another agent ('bob'), or let another agent write step 1",
      },
    ]);
    expect(await count(testEngine, "dialog_sessions")).toBe(0);
  });
});

describe("graded_by: who gave the scores that stopped the session", () => {
  it("a server model: separate review calls, marked server_model; the reviewer is told its scores decide", async () => {
    const { engine, model } = await setup(scriptedDialogResponder({ reviewerScore: () => 0.9 }));
    const started = await engine.invoke("start_reasoning_session", { topic: "t" });
    const output = runReasoningExchangeOutputSchema.parse(
      await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }),
    );
    expect([output.status, output.graded_by, output.quality.graded_by]).toEqual([
      "threshold_met",
      "server_model",
      "server_model",
    ]);
    expect(model.calls.find((call) => call.schemaName === "dialog_review")?.system).toContain(
      "Your scores decide when the session stops.",
    );
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).toMatchObject({
      graded_by: "server_model",
    });
  });

  it("host-executed: one agent plays every persona, is not told its scores decide, and status and result say the stop was host-graded", async () => {
    const { engine } = await setup([], { router: hostModelRouter });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", maxIterations: 3 });
    const systems: string[] = [];
    const result = await driveHost(engine, started["session_id"] as string, { reviewerScore: () => 0.95 }, systems);
    expect(result).toMatchObject({ status: "threshold_met", graded_by: "host", quality: { graded_by: "host" } });
    expect(result["next_step"]).toContain("graded_by host");
    const reviewSystem = systems.find((system) => system.includes("In this turn you review the document.")) ?? "";
    expect(reviewSystem).not.toContain("Your scores decide when the session stops");
    expect(reviewSystem).toContain("graded_by: host");
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).toMatchObject({
      status: "completed",
      stop_reason: "threshold_met",
      graded_by: "host",
    });
    const final = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: started["session_id"] }),
    );
    expect(final.graded_by).toBe("host");
    expect(final.quality_trajectory.map((point) => point.graded_by)).toEqual(["host"]);
    expect(final.result).toContain("Graded by the calling client (graded_by: host)");
  });

  it("sampling: the client's model plays every persona, and the stop is marked sampling", async () => {
    const { engine, model } = await setup({
      answer: scriptedDialogResponder({ reviewerScore: () => 0.9 }),
      provider: "sampling",
    });
    const started = await engine.invoke("start_reasoning_session", { topic: "t" });
    const output = await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] });
    expect(output).toMatchObject({ status: "threshold_met", graded_by: "sampling" });
    expect(model.calls.find((call) => call.schemaName === "dialog_review")?.system).toContain("graded_by: sampling");
    expect(await engine.invoke("get_reasoning_result", { session_id: started["session_id"] })).toMatchObject({
      graded_by: "sampling",
    });
  });
});

describe("every token spent counts against tokenBudget", () => {
  // Every call reports 250 + 125 tokens; the reviewer's answers always fail validation (one directive, twice).
  const failingReviewer = (options: GenerateOptions<unknown>, index: number) => {
    const answer = scriptedDialogResponder({ reviewerScore: () => 0.5 })(options, index) as Record<string, unknown>;
    return options.schemaName === "dialog_review"
      ? { ...answer, directives: (answer["directives"] as unknown[]).slice(0, 1) }
      : answer;
  };
  const usage = { inputTokens: 250, outputTokens: 125 };

  it("a reviewer whose answers fail validation: its spend is counted, and past the budget the session stops (budget_exhausted)", async () => {
    const { engine, model, store } = await setup({ answer: failingReviewer, usage });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", tokenBudget: 500 });
    const error = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    // The producer's answer, the reviewer's answer and its repair round.
    expect(model.calls.map((call) => [call.schemaName, call.repair])).toEqual([
      ["dialog_document", false],
      ["dialog_review", false],
      ["dialog_review", true],
    ]);
    const status = await engine.invoke("get_session_status", { session_id: started["session_id"] });
    expect(status).toMatchObject({ status: "completed", stop_reason: "budget_exhausted", tokens_used: 3 * 375 });
    expect(status["error"]).toMatch(/^MODEL_OUTPUT_INVALID: [\s\S]*1125 tokens of its 500-token budget/);
    // The invocation row records what the failed call spent, too.
    const [row] = (await store.invocations.list({})).filter(
      (invocation) => invocation.tool === "run_reasoning_exchange",
    );
    expect([row?.success, row?.input_tokens, row?.output_tokens, row?.model_calls]).toEqual([false, 750, 375, 3]);
    // No further spend: the session is finished.
    const again = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect([again.code, model.calls.length]).toEqual(["CONFLICT", 3]);
    expect(await engine.invoke("get_reasoning_result", { session_id: started["session_id"] })).toMatchObject({
      status: "completed",
      stop_reason: "budget_exhausted",
      quality_metrics: { total_tokens: 1125 },
    });
  });

  it("under the budget, a failed exchange's tokens still count, and the retried iteration adds its own", async () => {
    let broken = true;
    const { engine } = await setup({
      answer: (options: GenerateOptions<unknown>, index: number) =>
        broken
          ? failingReviewer(options, index)
          : scriptedDialogResponder({ reviewerScore: () => 0.5 })(options, index),
      usage,
    });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", tokenBudget: 100_000 });
    await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).toMatchObject({
      status: "error",
      tokens_used: 1125,
    });
    broken = false;
    const retried = runReasoningExchangeOutputSchema.parse(
      await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }),
    );
    expect([retried.quality.tokens, retried.budget.tokens_used]).toEqual([750, 1125 + 750]);
  });
});

describe("host-executed spend", () => {
  it("a refused host answer, answered again, counts each answer once", async () => {
    const { engine } = await setup([], { router: hostModelRouter });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", tokenBudget: 100_000 });
    let result = await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] });
    let refused = 0;
    const known = createHostContext();
    while (result["status"] === "needs_completion") {
      const step = needsCompletionSchema.parse(result);
      const answers = expandNeedsCompletion(step, known).map((prompt) => ({
        prompt_id: prompt.id,
        answer: answerDialogPrompt(
          { schemaName: prompt.name, system: prompt.system, user: prompt.user, jsonSchema: prompt.schema },
          {},
        ),
      }));
      if (step.prompts[0]?.name === "dialog_review" && refused === 0) {
        refused += 1;
        const bad = answers.map((entry) => ({
          ...entry,
          answer: { ...entry.answer, directives: (entry.answer["directives"] as unknown[]).slice(0, 1) },
        }));
        expect(
          (await errorOf(engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers: bad }))).code,
        ).toBe("INVALID_INPUT");
      }
      result = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers });
    }
    expect(refused).toBe(1);
    const output = runReasoningExchangeOutputSchema.parse(result);
    expect(output.budget.tokens_used).toBe(output.quality.tokens);
    expect((await engine.invoke("get_session_status", { session_id: started["session_id"] }))["tokens_used"]).toBe(
      output.quality.tokens,
    );
  });
});

describe("the best-scoring document is returned", () => {
  it("at max iterations after a late regression (0.55, 0.57, 0.53) the 0.57 document comes back, with the whole trajectory", async () => {
    const scores = [0.55, 0.57, 0.53];
    const { engine } = await setup(
      scriptedDialogResponder({
        reviewerScore: (turn) => scores[turn.iteration] ?? 0,
        document: (turn) => `# Plan v${turn.iteration}\nWritten in iteration ${turn.iteration}.`,
      }),
    );
    const started = await engine.invoke("start_reasoning_session", { topic: "t", maxIterations: 3 });
    const outputs = [];
    for (let iteration = 0; iteration < 3; iteration += 1)
      outputs.push(await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect(outputs.map((output) => output["status"])).toEqual(["in_progress", "in_progress", "max_iterations"]);
    expect(outputs[2]?.["next_step"]).toContain("the best-scoring document, iteration 1's (0.57)");
    for (const format of ["markdown", "json", "structured"] as const) {
      const result = getReasoningResultOutputSchema.parse(
        await engine.invoke("get_reasoning_result", { session_id: started["session_id"], format }),
      );
      expect(result).toMatchObject({
        document_iteration: 1,
        quality_metrics: { final_quality: 0.57, last_quality: 0.53, iterations: 3 },
      });
      expect(result.quality_trajectory.map((point) => point.reviewer_score)).toEqual([0.55, 0.57, 0.53]);
      const text = format === "json" ? (JSON.parse(result.result) as { document: string }).document : result.result;
      expect(text).toContain("# Plan v1\nWritten in iteration 1.");
      expect(text).not.toContain("# Plan v2");
    }
  });
});

describe("a document larger than the context budget", () => {
  it("is shown shortened to the reviewer and the next writer, stored whole, and the session goes on", async () => {
    // About 9,000 characters (2,250 tokens) against a 1,500-token budget.
    const long = (turn: { iteration: number }) =>
      `# Version ${turn.iteration}\n${"Body. ".repeat(1_500)}\nThe end of version ${turn.iteration}.`;
    const { engine, model } = await setup(
      scriptedDialogResponder({ reviewerScore: (turn) => (turn.iteration === 0 ? 0.5 : 0.9), document: long }),
    );
    const started = await engine.invoke("start_reasoning_session", {
      topic: "t",
      contextBudgetTokens: 1_500,
      maxIterations: 3,
    });
    const first = runReasoningExchangeOutputSchema.parse(
      await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }),
    );
    expect(first.status).toBe("in_progress");
    expect(first.shortened_documents).toEqual([
      {
        step: 1,
        author: "think",
        iteration: 0,
        shown_characters: expect.any(Number),
        total_characters: long({ iteration: 0 }).length,
      },
    ]);
    const review = model.calls.find((call) => call.schemaName === "dialog_review")?.messages[0]?.content ?? "";
    expect(review).toContain("Shortened to fit the context budget");
    expect(review).toMatch(
      /# Version 0[\s\S]*characters omitted here to fit the context budget[\s\S]*The end of version 0\./,
    );
    const second = runReasoningExchangeOutputSchema.parse(
      await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }),
    );
    expect(second.status).toBe("threshold_met");
    const rewrite = model.calls.filter((call) => call.schemaName === "dialog_document")[1]?.messages[0]?.content ?? "";
    expect(rewrite).toContain("write a complete document that keeps its essential content in at most about");
    const result = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: started["session_id"], format: "structured" }),
    );
    expect(result.result).toBe(long({ iteration: 1 }));
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).toMatchObject({
      status: "completed",
    });
  });
});

describe("exchange responses", () => {
  it("carry the document once, and scores rounded to three decimals", async () => {
    const document = `# Spec\n${"A 4 KB document line. ".repeat(186)}UNIQUE-END-MARK`;
    const { engine } = await setup(scriptedDialogResponder({ reviewerScore: () => 0.69, document: () => document }));
    const started = await engine.invoke("start_reasoning_session", { topic: "t", maxIterations: 2 });
    const output = await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] });
    const text = JSON.stringify(output);
    expect(text.split("UNIQUE-END-MARK")).toHaveLength(2);
    expect(text.length).toBeLessThan(document.length + 3_000);
    const parsed = runReasoningExchangeOutputSchema.parse(output);
    expect(parsed.exchanges[parsed.document_exchange]?.content).toBe(document);
    expect(parsed.exchanges[parsed.document_exchange]?.answer).toEqual({
      self_assessment: { score: 0.9, rationale: "I covered the rubric." },
    });
    // 0.69 on every criterion, weighted 0.2, 0.25, 0.2, 0.2, 0.15, sums to 0.6900000000000001 in floating point.
    expect(parsed.quality_score).toBe(0.69);
    expect(parsed.quality.reviews[0]?.score).toBe(0.69);
    expect(text).not.toMatch(/\d\.\d{4,}/);
    const result = await engine.invoke("get_reasoning_result", {
      session_id: started["session_id"],
      include_full_exchange: true,
      format: "json",
    });
    expect(JSON.stringify(result).split("UNIQUE-END-MARK").length - 1).toBe(3); // full_exchange, the json result (its document and its one exchange copy)
  });

  it("unknown keys are refused on the engine's tools, naming the right spelling; nothing is written", async () => {
    const testEngine = await setup(scriptedDialogResponder());
    const error = await errorOf(
      testEngine.engine.invoke("start_reasoning_session", { topic: "t", max_iterations: 7, quality_threshold: 0.3 }),
    );
    expect(error.issues).toEqual([
      { field: "max_iterations", message: "unknown field 'max_iterations'; did you mean 'maxIterations'?" },
      { field: "quality_threshold", message: "unknown field 'quality_threshold'; did you mean 'qualityThreshold'?" },
    ]);
    expect(await count(testEngine, "dialog_sessions")).toBe(0);
  });
});

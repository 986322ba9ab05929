import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createHostContext,
  DeliberateError,
  type DialogPresetName,
  dialogPresetNameSchema,
  expandNeedsCompletion,
  needsCompletionSchema,
} from "@deliberate/contracts";
import { hostModelRouter, randomIds } from "@deliberate/engine";
import type { GenerateOptions } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  answerDialogPrompt,
  createDialogTestEngine,
  createTestClock,
  type DialogScript,
  type DialogTestEngine,
  scriptedDialogResponder,
  type TestClock,
} from "../../testing/index.ts";

const engines: DialogTestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close().catch(() => undefined)));
});

async function setup(
  script: DialogScript | Parameters<typeof createDialogTestEngine>[0],
  options: Parameters<typeof createDialogTestEngine>[1] = {},
) {
  const responder =
    typeof script === "function" || Array.isArray(script) ? script : scriptedDialogResponder(script as DialogScript);
  const testEngine = await createDialogTestEngine(responder as Parameters<typeof createDialogTestEngine>[0], options);
  engines.push(testEngine);
  return testEngine;
}

type Output = Record<string, unknown> & {
  status: string;
  should_continue: boolean;
  quality_score: number;
  iteration: number;
  exchanges: Array<Record<string, unknown>>;
  quality: { self_assessment: number; reviewer_score: number; tokens: number };
  budget: { tokens_used: number; token_budget: number | null };
};

async function runToEnd(engine: DialogTestEngine["engine"], sessionId: string): Promise<Output[]> {
  const outputs: Output[] = [];
  for (;;) {
    const output = (await engine.invoke("run_reasoning_exchange", { session_id: sessionId })) as Output;
    outputs.push(output);
    if (!output.should_continue) return outputs;
    if (outputs.length > 25) throw new Error("the session never stopped");
  }
}

async function errorOf(promise: Promise<unknown>): Promise<DeliberateError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateError.isInstance(error)) throw new Error(`expected a DeliberateError, got ${String(error)}`);
  return error;
}

async function rowCounts(store: Store): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of [
    "sessions",
    "invocations",
    "dialog_sessions",
    "dialog_agents",
    "dialog_exchanges",
    "dialog_iterations",
    "dialog_summaries",
  ]) {
    const result = await sql<{ count: number }>`select count(*) as count from ${sql.table(table)}`.execute(store.db);
    counts[table] = Number(result.rows[0]?.count);
  }
  return counts;
}

const rising: DialogScript = { reviewerScore: (turn) => 0.45 + 0.2 * turn.iteration };

describe("run_reasoning_exchange with a server model", () => {
  it.each(dialogPresetNameSchema.options)(
    "%s runs to threshold_met as the reviewers' scores rise",
    async (mode: DialogPresetName) => {
      const { engine, store } = await setup(rising);
      const started = await engine.invoke("start_reasoning_session", {
        topic: "Plan the launch of a budgeting app",
        mode,
        maxIterations: 5,
        qualityThreshold: 0.8,
      });
      const outputs = await runToEnd(engine, started["session_id"] as string);
      expect(outputs.map((output) => output.status)).toEqual(["in_progress", "in_progress", "threshold_met"]);
      expect(outputs.map((output) => output.quality_score)).toEqual(
        [0.45, 0.65, 0.85].map((score) => expect.closeTo(score, 10)),
      );
      // The author's own grade is recorded beside the reviewers' score, and did not decide anything.
      expect(outputs.map((output) => output.quality.self_assessment)).toEqual([0.9, 0.9, 0.9]);
      expect(outputs[2]?.next_step).toContain("get_reasoning_result");
      const status = await engine.invoke("get_session_status", { session_id: started["session_id"] });
      expect(status).toMatchObject({
        status: "completed",
        stop_reason: "threshold_met",
        current_iteration: 3,
        current_quality: expect.closeTo(0.85, 10),
      });
      const rows = await store.invocations.list({ tool: "run_reasoning_exchange" } as never);
      expect(rows.filter((row) => row.tool === "run_reasoning_exchange")).toHaveLength(3);
    },
  );

  it("stops at max_iterations when the scores do not rise, however well the author grades itself", async () => {
    const { engine } = await setup({ reviewerScore: () => 0.5, selfAssessment: () => 1 });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", maxIterations: 3 });
    const outputs = await runToEnd(engine, started["session_id"] as string);
    expect(outputs.map((output) => [output.status, output.should_continue])).toEqual([
      ["in_progress", true],
      ["in_progress", true],
      ["max_iterations", false],
    ]);
    expect(outputs.every((output) => output.quality.self_assessment === 1 && output.quality_score === 0.5)).toBe(true);
  });

  it("stops on the token budget before the next exchange would pass it", async () => {
    const { engine } = await setup({ reviewerScore: () => 0.5 });
    const probe = await engine.invoke("start_reasoning_session", { topic: "t", maxIterations: 10 });
    const first = (await engine.invoke("run_reasoning_exchange", { session_id: probe["session_id"] })) as Output;
    const perIteration = first.quality.tokens;
    const started = await engine.invoke("start_reasoning_session", {
      topic: "t",
      maxIterations: 10,
      tokenBudget: Math.round(perIteration * 3.5),
    });
    const outputs = await runToEnd(engine, started["session_id"] as string);
    expect(outputs.map((output) => output.status)).toEqual(["in_progress", "in_progress", "budget_exhausted"]);
    const last = outputs[2] as Output;
    expect(last.budget.tokens_used).toBeLessThanOrEqual(last.budget.token_budget as number);
    expect(last.budget.tokens_used + last.quality.tokens).toBeGreaterThan(last.budget.token_budget as number);
    expect(last.next_step).toContain("would pass it");
  });

  it("stops on the wall-time budget, and a budget that ran out between exchanges completes the session without a write", async () => {
    const clock = createTestClock();
    // Every model call takes 10 s of session time; an iteration (two calls) 20 s.
    const responder = scriptedDialogResponder({ reviewerScore: () => 0.5 });
    const { engine, store } = await setup(
      (options: GenerateOptions<unknown>, index: number) => {
        clock.advance(10_000);
        return responder(options, index);
      },
      { clock },
    );
    const started = await engine.invoke("start_reasoning_session", {
      topic: "t",
      maxIterations: 10,
      wallTimeBudgetSeconds: 50,
    });
    const outputs = await runToEnd(engine, started["session_id"] as string);
    expect(outputs.map((output) => output.status)).toEqual(["in_progress", "budget_exhausted"]);

    const other = await engine.invoke("start_reasoning_session", {
      topic: "t",
      maxIterations: 10,
      wallTimeBudgetSeconds: 45,
    });
    expect(
      ((await engine.invoke("run_reasoning_exchange", { session_id: other["session_id"] })) as Output).status,
    ).toBe("in_progress");
    (clock as TestClock).advance(30_000);
    const before = await rowCounts(store);
    const error = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: other["session_id"] }));
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain("used up its wall-time budget of 45 s (50 s since it started)");
    expect(await rowCounts(store)).toEqual(before);
    expect(await engine.invoke("get_session_status", { session_id: other["session_id"] })).toMatchObject({
      status: "completed",
      stop_reason: "budget_exhausted",
    });
  });

  it("runs a custom-agent debate: advocate and skeptic write concurrently, the synthesizer merges, both review", async () => {
    let inFlight = 0;
    let mostInFlight = 0;
    const responder = scriptedDialogResponder({ reviewerScore: (turn) => (turn.iteration === 0 ? 0.6 : 0.9) });
    const { engine, model } = await setup(async (options: GenerateOptions<unknown>, index: number) => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight -= 1;
      return responder(options, index);
    });
    const agents = [
      {
        name: "advocate",
        role: "Microservices Advocate",
        systemPrompt: "You strongly advocate for microservices.",
        temperature: 0.6,
      },
      {
        name: "skeptic",
        role: "Monolith Defender",
        systemPrompt: "You advocate starting with a well-structured monolith.",
        temperature: 0.6,
      },
      {
        name: "synthesizer",
        role: "Decision Synthesizer",
        systemPrompt: "You synthesize a balanced recommendation.",
        temperature: 0.4,
      },
    ];
    const started = await engine.invoke("start_reasoning_session", {
      topic: "Microservices or monolith?",
      mode: "debate",
      agents,
    });
    expect(started["turns"]).toEqual([
      [
        { agent: "advocate", act: "produce" },
        { agent: "skeptic", act: "produce" },
      ],
      [{ agent: "synthesizer", act: "merge" }],
      [
        { agent: "advocate", act: "review" },
        { agent: "skeptic", act: "review" },
      ],
    ]);
    const outputs = await runToEnd(engine, started["session_id"] as string);
    expect(outputs.map((output) => output.status)).toEqual(["in_progress", "threshold_met"]);
    expect(
      outputs[0]?.exchanges.map((exchange) => `${exchange["agent"]}:${exchange["act"]}:${exchange["role"]}`),
    ).toEqual([
      "advocate:produce:initiator",
      "skeptic:produce:initiator",
      "synthesizer:merge:responder",
      "advocate:review:responder",
      "skeptic:review:responder",
    ]);
    expect(mostInFlight).toBe(2);
    // The merge saw both positions; the reviews judged the merged document; each agent had its persona and temperature.
    const merge = model.calls.find((call) => call.schemaName === "dialog_merge");
    expect(merge?.messages[0]?.content).toMatch(/by advocate[\s\S]*by skeptic[\s\S]*Merge the 2 documents/);
    expect(merge?.system.startsWith("You synthesize a balanced recommendation.")).toBe(true);
    expect(merge?.temperature).toBe(0.4);
    const review = model.calls.find((call) => call.schemaName === "dialog_review");
    expect(review?.messages[0]?.content).toContain("# Document to review (iteration 0, by synthesizer)");
    // Iteration 1: each side refines the merged document with every directive of both reviews.
    const refine = model.calls.filter((call) => call.schemaName === "dialog_document")[2];
    expect(refine?.messages[0]?.content).toMatch(
      /strengthen claim_clarity \(from advocate\)[\s\S]*strengthen claim_clarity \(from skeptic\)/,
    );
  });

  it("follows explicit turns: the synthesizer merges after the critic, and the critic reviews the merge", async () => {
    const { engine, model } = await setup({ reviewerScore: () => 0.9 });
    const agents = [
      { name: "author", role: "Author", systemPrompt: "You argue." },
      { name: "critic", role: "Critic", systemPrompt: "You object." },
      { name: "synthesizer", role: "Synthesizer", systemPrompt: "You merge." },
    ];
    const turns = [
      [{ agent: "author", act: "produce" }],
      [{ agent: "critic", act: "review" }],
      [{ agent: "synthesizer", act: "merge" }],
      [{ agent: "critic", act: "review" }],
    ];
    const started = await engine.invoke("start_reasoning_session", { topic: "t", mode: "debate", agents, turns });
    const [output] = await runToEnd(engine, started["session_id"] as string);
    expect(output?.exchanges.map((exchange) => `${exchange["agent"]}:${exchange["act"]}`)).toEqual([
      "author:produce",
      "critic:review",
      "synthesizer:merge",
      "critic:review",
    ]);
    const merge = model.calls.find((call) => call.schemaName === "dialog_merge")?.messages[0]?.content ?? "";
    expect(merge).toContain("# Directives to incorporate (all of them)");
    expect(merge).toContain("Merge the document above into one complete document.");
    expect(output?.exchanges[output["document_exchange"] as number]?.["content"]).toContain(
      "Written by synthesizer (merge)",
    );
  });

  it("passes each agent's model, temperature and maxTokens to its calls", async () => {
    const { engine, model } = await setup({ reviewerScore: () => 0.9 });
    const agents = [
      {
        name: "writer",
        role: "Writer",
        systemPrompt: "You write.",
        model: "big-model",
        temperature: 0.1,
        maxTokens: 321,
      },
      { name: "judge", role: "Judge", systemPrompt: "You judge." },
    ];
    const started = await engine.invoke("start_reasoning_session", { topic: "t", agents });
    const [output] = await runToEnd(engine, started["session_id"] as string);
    expect(model.calls.map((call) => [call.schemaName, call.modelId, call.temperature, call.maxTokens])).toEqual([
      ["dialog_document", "big-model", 0.1, 321],
      ["dialog_review", undefined, 0.3, 1500],
    ]);
    expect(output?.exchanges.map((exchange) => exchange["model"])).toEqual(["big-model", "scripted-model"]);
  });

  it("reports progress per turn", async () => {
    const { engine } = await setup({ reviewerScore: () => 0.5 });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", mode: "synthesis" });
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    await engine.invoke(
      "run_reasoning_exchange",
      { session_id: started["session_id"] },
      { progress: (update) => updates.push(update) },
    );
    expect(updates.map((update) => [update.progress, update.total])).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 5],
      [5, 5],
    ]);
    expect(updates[2]?.message).toBe("iteration 0: synthesizer merged");
  });

  it("a model answer that cannot be validated is a visible error status, and running again retries the iteration", async () => {
    let broken = true;
    const responder = scriptedDialogResponder({ reviewerScore: () => 0.5 });
    const { engine, store } = await setup((options: GenerateOptions<unknown>, index: number) => {
      const answer = responder(options, index) as Record<string, unknown>;
      // One directive only: invalid, and the repair round repeats it.
      if (broken && options.schemaName === "dialog_review")
        return { ...answer, directives: (answer["directives"] as unknown[]).slice(0, 1) };
      return answer;
    });
    const started = await engine.invoke("start_reasoning_session", { topic: "t" });
    const error = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect(error.code).toBe("MODEL_OUTPUT_INVALID");
    const status = await engine.invoke("get_session_status", { session_id: started["session_id"] });
    expect(status).toMatchObject({ status: "error", current_quality: null, current_iteration: 0 });
    expect(status["error"]).toMatch(/^MODEL_OUTPUT_INVALID: /);
    const counts = await rowCounts(store);
    expect([counts["dialog_exchanges"], counts["dialog_iterations"]]).toEqual([0, 0]);
    const failed = (await store.invocations.list({})).filter((row) => row.tool === "run_reasoning_exchange");
    expect(failed.map((row) => [row.success, row.error_code])).toEqual([[false, "MODEL_OUTPUT_INVALID"]]);
    broken = false;
    const retried = (await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] })) as Output;
    expect([retried.iteration, retried.status]).toEqual([0, "in_progress"]);
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).not.toHaveProperty(
      "error",
    );
  });

  it("cancellation stops the exchange and leaves the session as it was", async () => {
    const controller = new AbortController();
    const testEngine = await createDialogTestEngine({ answer: scriptedDialogResponder(), latencyMs: 5_000 });
    engines.push(testEngine);
    const { engine, store } = testEngine;
    const started = await engine.invoke("start_reasoning_session", { topic: "t" });
    const before = await rowCounts(store);
    const pending = engine.invoke(
      "run_reasoning_exchange",
      { session_id: started["session_id"] },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 50);
    expect((await errorOf(pending)).code).toBe("CANCELLED");
    const after = await rowCounts(store);
    expect({ ...after, invocations: before["invocations"] }).toEqual(before);
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).toMatchObject({
      status: "started",
    });
  });
});

describe("bad input writes nothing", () => {
  it("unknown session, finished session, wrong iteration and invalid agents are refused naming the field", async () => {
    const { engine, store } = await setup({ reviewerScore: () => 0.95 });
    const started = await engine.invoke("start_reasoning_session", { topic: "t" });
    await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] });
    const before = await rowCounts(store);

    const unknown = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: "ses_missing" }));
    expect([unknown.code, unknown.issues]).toEqual([
      "NOT_FOUND",
      [{ field: "session_id", message: "no reasoning session with id 'ses_missing'" }],
    ]);
    const finished = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect([finished.code, finished.issues[0]?.field]).toEqual(["CONFLICT", "session_id"]);
    expect(finished.message).toContain("is finished (threshold_met) after 1 iteration(s)");
    const agents = [
      { name: "a", role: "r", systemPrompt: "p" },
      { name: "A", role: "r", systemPrompt: "p" },
    ];
    const invalid = await errorOf(engine.invoke("start_reasoning_session", { topic: "t", agents }));
    expect([invalid.code, invalid.issues]).toEqual([
      "INVALID_INPUT",
      [{ field: "agents.1.name", message: "'A' is already the name of agents.0; agent names must be unique" }],
    ]);
    const tooMany = await errorOf(
      engine.invoke("start_reasoning_session", {
        topic: "t",
        agents: Array.from({ length: 9 }, (_, index) => ({ name: `a${index}`, role: "r", systemPrompt: "p" })),
      }),
    );
    expect(tooMany.issues).toEqual([{ field: "agents", message: "agents takes at most 8 agents" }]);
    const other = await engine.invoke("start_reasoning_session", { topic: "t" });
    const afterStart = await rowCounts(store);
    const wrongIteration = await errorOf(
      engine.invoke("run_reasoning_exchange", { session_id: other["session_id"], iteration: 2 }),
    );
    expect([wrongIteration.code, wrongIteration.issues]).toEqual([
      "CONFLICT",
      [{ field: "iteration", message: "the next iteration is 0" }],
    ]);
    expect(await rowCounts(store)).toEqual(afterStart);
    expect(afterStart["dialog_sessions"]).toBe((before["dialog_sessions"] as number) + 1);
    expect(afterStart["dialog_exchanges"]).toBe(before["dialog_exchanges"]);
  });

  it("a context that leaves no room in the context budget is refused at the start", async () => {
    const { engine, store } = await setup({});
    const before = await rowCounts(store);
    const error = await errorOf(
      engine.invoke("start_reasoning_session", { topic: "t", context: "x".repeat(8_000), contextBudgetTokens: 2_000 }),
    );
    expect([error.code, error.issues[0]?.field]).toEqual(["INVALID_INPUT", "context"]);
    expect(await rowCounts(store)).toEqual(before);
  });
});

describe("sessions over time", () => {
  it("idle sessions expire, and the error says so; their record stays readable", async () => {
    const { engine, clock } = await setup({ reviewerScore: () => 0.5 });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", idleTimeoutMinutes: 5 });
    await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] });
    clock.advance(4 * 60_000);
    await engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] });
    clock.advance(6 * 60_000);
    const error = await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }));
    expect(error.code).toBe("CONFLICT");
    expect(error.message).toContain("expired: no activity for more than 5 minute(s)");
    // Expiry is reported as a status of its own, by the status and by the result.
    expect(await engine.invoke("get_session_status", { session_id: started["session_id"] })).toMatchObject({
      status: "expired",
      expired: true,
      current_iteration: 2,
    });
    const result = await engine.invoke("get_reasoning_result", { session_id: started["session_id"] });
    expect(result).toMatchObject({ status: "expired", quality_metrics: { iterations: 2 } });
    expect(result["next_step"]).toContain("expired");
  });

  it("the module's idle timeout applies when the session sets none", async () => {
    const { engine, clock } = await setup({ reviewerScore: () => 0.5 }, { dialog: { idleTimeoutMinutes: 1 } });
    const started = await engine.invoke("start_reasoning_session", { topic: "t" });
    expect(started["expires_at"]).toBe("2026-11-23T10:01:00.000Z");
    clock.advance(61_000);
    expect(
      (await errorOf(engine.invoke("run_reasoning_exchange", { session_id: started["session_id"] }))).message,
    ).toContain("expired");
  });

  it("a restart in the middle of a session, then another exchange, continues it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "dialog-restart-"));
    try {
      const path = join(folder, "deliberate.db");
      // Real ids: a restarted service must not reuse the ids of the rows already written.
      const first = await setup(rising, { path, engine: { ids: randomIds } });
      const started = await first.engine.invoke("start_reasoning_session", { topic: "Restartable", maxIterations: 4 });
      const before = (await first.engine.invoke("run_reasoning_exchange", {
        session_id: started["session_id"],
      })) as Output;
      await first.store.close();

      const second = await setup(rising, { path, engine: { ids: randomIds } });
      const after = (await second.engine.invoke("run_reasoning_exchange", {
        session_id: started["session_id"],
        iteration: 1,
      })) as Output;
      expect([before.iteration, after.iteration]).toEqual([0, 1]);
      const prompt = second.model.calls[0]?.messages[0]?.content ?? "";
      expect(prompt).toContain("Written by think (produce) in iteration 0.");
      expect(prompt).toContain("Iteration 0: strengthen clarity (from dialog).");
      const result = await second.engine.invoke("get_reasoning_result", { session_id: started["session_id"] });
      expect(result["quality_trajectory"]).toHaveLength(2);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("summarises early iterations when the prompts would overflow the context budget; the raw turns stay stored", async () => {
    const longDocument = (turn: { agent: string; iteration: number; act: string }) =>
      `# Document\nWritten by ${turn.agent} (${turn.act}) in iteration ${turn.iteration}.\n${"Detail. ".repeat(180)}`;
    const { engine, model, store } = await setup({
      reviewerScore: () => 0.5,
      document: longDocument,
      summary: () => "Iterations so far: the document grew; clarity was asked for.",
    });
    const started = await engine.invoke("start_reasoning_session", {
      topic: "t",
      maxIterations: 5,
      contextBudgetTokens: 1_200,
    });
    const outputs = await runToEnd(engine, started["session_id"] as string);
    // Iteration 1 fits; from iteration 2 on, each exchange folds the iteration before last into the summary.
    expect(
      outputs.map((output) => (output["summary"] as { through_iteration: number } | undefined)?.through_iteration),
    ).toEqual([undefined, undefined, 0, 1, 2]);
    const summaryCalls = model.calls.filter((call) => call.schemaName === "dialog_summary");
    expect(summaryCalls).toHaveLength(3);
    expect(summaryCalls[0]?.messages[0]?.content).toContain("Written by think (produce) in iteration 0.");
    expect(summaryCalls[1]?.messages[0]?.content).toMatch(
      /## Summary of iterations 0-0[\s\S]*Written by think \(produce\) in iteration 1\./,
    );
    // The first prompt of iteration 2 uses the summary instead of iteration 0's turns.
    const iterationTwo = model.calls.find(
      (call) =>
        call.schemaName === "dialog_document" &&
        (call.messages[0]?.content ?? "").includes("# Your task (iteration 2)"),
    );
    expect(iterationTwo?.messages[0]?.content).toContain("## Summary of iterations 0-0\nIterations so far");
    expect(iterationTwo?.messages[0]?.content).not.toContain("in iteration 0.");
    const exchanges = await sql<{ count: number }>`select count(*) as count from dialog_exchanges`.execute(store.db);
    expect(Number(exchanges.rows[0]?.count)).toBe(10);
    const result = await engine.invoke("get_reasoning_result", {
      session_id: started["session_id"],
      include_full_exchange: true,
    });
    expect(result["full_exchange"]).toHaveLength(10);
    expect(result["result"]).toContain("### Summary of iterations 0-0 (used in later prompts instead of them)");
    // Summaries are counted in the session's tokens.
    expect((result["quality_metrics"] as { total_tokens: number }).total_tokens).toBe(outputs[4]?.budget.tokens_used);
  });
});

describe("host-executed (no key)", () => {
  /** Answers every prompt of every needs_completion round as the calling agent would; counts rounds and prompts. */
  async function drive(engine: DialogTestEngine["engine"], sessionId: string, script: DialogScript) {
    let result = await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
    const rounds: number[] = [];
    const known = createHostContext();
    while (result["status"] === "needs_completion") {
      const step = needsCompletionSchema.parse(result);
      rounds.push(step.prompts.length);
      const answers = expandNeedsCompletion(step, known).map((prompt) => ({
        prompt_id: prompt.id,
        answer: answerDialogPrompt(
          { schemaName: prompt.name, system: prompt.system, user: prompt.user, jsonSchema: prompt.schema },
          script,
        ),
      }));
      result = await engine.invoke("reasoning_submit", { resume_token: step.resume_token, answers });
    }
    return { result: result as Output, rounds };
  }

  it.each(dialogPresetNameSchema.options)(
    "%s runs to threshold_met through needs_completion rounds: one per dependent step",
    async (mode: DialogPresetName) => {
      const { engine, store } = await setup([], { router: hostModelRouter });
      const started = await engine.invoke("start_reasoning_session", { topic: "t", mode, maxIterations: 5 });
      const statuses: string[] = [];
      for (let iteration = 0; iteration < 3; iteration += 1) {
        const { result, rounds } = await drive(engine, started["session_id"] as string, rising);
        expect(rounds).toEqual(mode === "synthesis" ? [2, 1, 2] : [1, 1]);
        expect(result.exchanges.every((exchange) => (exchange["tokens"] as { estimated: boolean }).estimated)).toBe(
          true,
        );
        statuses.push(result.status);
      }
      expect(statuses).toEqual(["in_progress", "in_progress", "threshold_met"]);
      const tokens = (await engine.invoke("get_session_status", { session_id: started["session_id"] }))[
        "tokens_used"
      ] as number;
      expect(tokens).toBeGreaterThan(0);
      const counts = await rowCounts(store);
      expect(counts["dialog_iterations"]).toBe(3);
    },
  );

  it("stops on a token budget with estimated tokens, and to max_iterations, without a key", async () => {
    const { engine } = await setup([], { router: hostModelRouter });
    const started = await engine.invoke("start_reasoning_session", { topic: "t", maxIterations: 2 });
    const statuses = [];
    for (let iteration = 0; iteration < 2; iteration += 1)
      statuses.push((await drive(engine, started["session_id"] as string, { reviewerScore: () => 0.5 })).result.status);
    expect(statuses).toEqual(["in_progress", "max_iterations"]);
    const budgeted = await engine.invoke("start_reasoning_session", {
      topic: "t",
      maxIterations: 10,
      tokenBudget: 1_000,
    });
    const { result } = await drive(engine, budgeted["session_id"] as string, { reviewerScore: () => 0.5 });
    expect(result.status).toBe("budget_exhausted");
  });
});

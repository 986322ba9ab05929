import { getReasoningResultOutputSchema, listReasoningPresetsOutputSchema } from "@deliberate/contracts";
import { afterEach, describe, expect, it } from "vitest";
import { createDialogTestEngine, type DialogTestEngine, scriptedDialogResponder } from "../../testing/index.ts";

const engines: DialogTestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

/** A debate session with two iterations: reviewers 0.55 then 0.85 (threshold 0.8). */
async function finishedDebate() {
  const testEngine = await createDialogTestEngine(
    scriptedDialogResponder({
      reviewerScore: (turn) => (turn.iteration === 0 ? 0.55 : 0.85),
      selfAssessment: () => 0.95,
      document: (turn) => `# Position v${turn.iteration}\nMonolith first, by ${turn.agent}.`,
    }),
  );
  engines.push(testEngine);
  const { engine } = testEngine;
  const started = await engine.invoke("start_reasoning_session", {
    topic: "Microservices or monolith?",
    mode: "debate",
  });
  const sessionId = started["session_id"] as string;
  await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
  await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
  return { engine, sessionId };
}

describe("get_reasoning_result", () => {
  it("markdown: the final document, the spec's quality_metrics and the trajectory per iteration", async () => {
    const { engine, sessionId } = await finishedDebate();
    const result = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: sessionId }),
    );
    expect(result).toMatchObject({
      status: "completed",
      stop_reason: "threshold_met",
      format: "markdown",
      quality_metrics: { final_quality: 0.85, iterations: 2, agents_used: ["dialog", "critic"], self_assessment: 0.95 },
    });
    expect(result.full_exchange).toBeUndefined();
    expect(
      result.quality_trajectory.map((point) => [point.iteration, point.reviewer_score, point.self_assessment]),
    ).toEqual([
      [0, 0.55, 0.95],
      [1, 0.85, 0.95],
    ]);
    expect(result.quality_metrics.total_tokens).toBe(
      result.quality_trajectory.reduce((total, point) => total + point.tokens, 0),
    );
    expect(result).toMatchObject({
      document_iteration: 1,
      graded_by: "server_model",
      quality_metrics: { last_quality: 0.85 },
    });
    expect(result.result).toContain("# Microservices or monolith?");
    expect(result.result).toContain("# Position v1\nMonolith first, by dialog.");
    expect(result.result).toContain("| 1 | 0.85 | 0.95 | 0.85 | 0.85 | 0.85 | 0.85 |");
    expect(result.result).toContain("## Directives not yet incorporated");
    expect(result.result).not.toContain("## Iteration 0");
  });

  it("include_full_exchange adds every turn, and the Markdown transcript to a markdown result", async () => {
    const { engine, sessionId } = await finishedDebate();
    const result = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: sessionId, include_full_exchange: "true" }),
    );
    expect(
      result.full_exchange?.map(
        (exchange) => `${exchange.iteration}:${exchange.agent}:${exchange.role}:${exchange.consciousness_state}`,
      ),
    ).toEqual([
      "0:dialog:initiator:analyzing",
      "0:critic:responder:analyzing",
      "1:dialog:initiator:synthesizing",
      "1:critic:responder:breakthrough",
    ]);
    expect(result.result).toMatch(
      /## Iteration 0[\s\S]*### dialog writes \(initiator, analyzing\)[\s\S]*### critic reviews[\s\S]*## Iteration 1/,
    );
  });

  it("json: the same report as JSON text; structured: the document as result and the report as data", async () => {
    const { engine, sessionId } = await finishedDebate();
    const json = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", {
        session_id: sessionId,
        format: "json",
        include_full_exchange: true,
      }),
    );
    const parsed = JSON.parse(json.result) as Record<string, unknown>;
    expect(parsed).toMatchObject({
      session_id: sessionId,
      mode: "debate",
      document: "# Position v1\nMonolith first, by dialog.",
      stop_reason: "threshold_met",
    });
    expect(parsed["quality_trajectory"]).toHaveLength(2);
    expect(parsed["exchanges"]).toHaveLength(4);
    const structured = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: sessionId, format: "structured" }),
    );
    expect(structured.result).toBe("# Position v1\nMonolith first, by dialog.");
    expect(structured.structured?.open_directives.map((directive) => directive.agent)).toEqual(["critic", "critic"]);
    expect(structured.structured?.quality_trajectory).toEqual(structured.quality_trajectory);
  });

  it("pages a large session's turns like thoughts: limit and offset, totals and next_offset, in order, none twice", async () => {
    // Eight agents: seven write, one merges, seven review: 15 turns an iteration, 20 iterations, 300 turns.
    const testEngine = await createDialogTestEngine(scriptedDialogResponder({ reviewerScore: () => 0.5 }));
    engines.push(testEngine);
    const { engine } = testEngine;
    const agents = Array.from({ length: 8 }, (_, index) => ({ name: `agent${index}`, role: "r", systemPrompt: "p" }));
    const started = await engine.invoke("start_reasoning_session", { topic: "t", agents, maxIterations: 20 });
    const sessionId = started["session_id"] as string;
    for (let iteration = 0; iteration < 20; iteration += 1)
      await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
    expect(await engine.invoke("get_session_status", { session_id: sessionId })).toMatchObject({
      status: "completed",
      exchange_count: 300,
    });

    const first = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: sessionId, include_full_exchange: true }),
    );
    expect(first.full_exchange).toHaveLength(100);
    expect(first.page).toEqual({ offset: 0, limit: 100, totals: { exchanges: 300 }, next_offset: 100 });
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page = getReasoningResultOutputSchema.parse(
        await engine.invoke("get_reasoning_result", {
          session_id: sessionId,
          include_full_exchange: true,
          limit: 70,
          offset,
          format: "json",
        }),
      );
      seen.push(
        ...(page.full_exchange ?? []).map(
          (exchange) => `${exchange.iteration}:${exchange.step}:${exchange.agent}:${exchange.act}`,
        ),
      );
      expect(JSON.parse(page.result).exchanges).toHaveLength(page.full_exchange?.length ?? -1);
      offset = page.page?.next_offset ?? null;
      pages += 1;
    }
    expect([pages, seen.length, new Set(seen).size]).toEqual([5, 300, 300]);
    expect(seen.slice(0, 3)).toEqual(["0:0:agent0:produce", "0:0:agent1:produce", "0:0:agent2:produce"]);
    expect(seen[299]).toBe("19:2:agent6:review");

    // The Markdown transcript shows the page's iterations only; the report above it keeps the whole trajectory.
    const markdown = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", {
        session_id: sessionId,
        include_full_exchange: true,
        limit: 15,
        offset: 30,
      }),
    );
    expect(markdown.result).toContain("## Iteration 2");
    expect(markdown.result).not.toContain("## Iteration 1\n");
    expect(markdown.result).not.toContain("## Iteration 3");
    expect(markdown.quality_trajectory).toHaveLength(20);
    const beyond = getReasoningResultOutputSchema.parse(
      await engine.invoke("get_reasoning_result", { session_id: sessionId, include_full_exchange: true, offset: 300 }),
    );
    expect([beyond.full_exchange, beyond.page?.next_offset]).toEqual([[], null]);
    const tooMany = await engine
      .invoke("get_reasoning_result", { session_id: sessionId, include_full_exchange: true, limit: 1001 })
      .catch((error: unknown) => error);
    expect((tooMany as { issues: Array<{ field: string }> }).issues.map((issue) => issue.field)).toEqual(["limit"]);
  });

  it("before the first exchange: in progress, empty result, no invented quality", async () => {
    const testEngine = await createDialogTestEngine(scriptedDialogResponder());
    engines.push(testEngine);
    const started = await testEngine.engine.invoke("start_reasoning_session", { topic: "t" });
    const result = getReasoningResultOutputSchema.parse(
      await testEngine.engine.invoke("get_reasoning_result", {
        session_id: started["session_id"],
        format: "structured",
      }),
    );
    expect(result).toMatchObject({
      status: "in_progress",
      result: "",
      quality_metrics: { final_quality: null, iterations: 0, total_tokens: 0, agents_used: [] },
    });
    expect(result.next_step).toContain("to begin (iteration 0)");
    const status = await testEngine.engine.invoke("get_session_status", { session_id: started["session_id"] });
    expect(status).toMatchObject({ status: "started", current_quality: null, current_iteration: 0, expired: false });
  });
});

describe("list_reasoning_presets", () => {
  it("lists the five presets with agents in speaking order, turns and rubric", async () => {
    const testEngine = await createDialogTestEngine(scriptedDialogResponder());
    engines.push(testEngine);
    const { presets } = listReasoningPresetsOutputSchema.parse(
      await testEngine.engine.invoke("list_reasoning_presets", {}),
    );
    expect(presets.map((preset) => [preset.name, preset.agents.map((agent) => agent.name)])).toEqual([
      ["objective_refinement", ["think", "dialog"]],
      ["exploration", ["think", "dialog"]],
      ["debate", ["dialog", "critic"]],
      ["synthesis", ["think", "dialog", "synthesizer"]],
      ["code_review", ["implementer", "reviewer"]],
    ]);
    for (const preset of presets) {
      expect(preset.mode).toBe(preset.name);
      expect(preset.recommended_for.length).toBeGreaterThan(0);
      expect(preset.criteria.reduce((total, criterion) => total + criterion.weight, 0)).toBeCloseTo(1, 12);
    }
  });

  it("a preset's agents copied into start_reasoning_session speak as the preset does: the writer writes, the reviewer reviews", async () => {
    const testEngine = await createDialogTestEngine(scriptedDialogResponder({ reviewerScore: () => 0.9 }));
    engines.push(testEngine);
    const { engine } = testEngine;
    const { presets } = listReasoningPresetsOutputSchema.parse(await engine.invoke("list_reasoning_presets", {}));
    for (const preset of presets) {
      const copied = await engine.invoke("start_reasoning_session", {
        topic: "t",
        mode: preset.mode,
        agents: preset.agents,
      });
      expect(copied["turns"]).toEqual(preset.turns);
      const output = await engine.invoke("run_reasoning_exchange", { session_id: copied["session_id"] });
      const turns = (output["exchanges"] as Array<{ agent: string; act: string }>).map(
        (turn) => `${turn.agent}:${turn.act}`,
      );
      expect(turns).toEqual(preset.turns.flat().map((turn) => `${turn.agent}:${turn.act}`));
    }
  });
});

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
  const started = await engine.invoke("start_reasoning_session", { topic: "Microservices or monolith?", mode: "debate" });
  const sessionId = started["session_id"] as string;
  await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
  await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
  return { engine, sessionId };
}

describe("get_reasoning_result", () => {
  it("markdown: the final document, the spec's quality_metrics and the trajectory per iteration", async () => {
    const { engine, sessionId } = await finishedDebate();
    const result = getReasoningResultOutputSchema.parse(await engine.invoke("get_reasoning_result", { session_id: sessionId }));
    expect(result).toMatchObject({
      status: "completed",
      stop_reason: "threshold_met",
      format: "markdown",
      quality_metrics: { final_quality: 0.85, iterations: 2, agents_used: ["dialog", "critic"], self_assessment: 0.95 },
    });
    expect(result.full_exchange).toBeUndefined();
    expect(result.quality_trajectory.map((point) => [point.iteration, point.reviewer_score, point.self_assessment])).toEqual([
      [0, 0.55, 0.95],
      [1, 0.85, 0.95],
    ]);
    expect(result.quality_metrics.total_tokens).toBe(result.quality_trajectory.reduce((total, point) => total + point.tokens, 0));
    expect(result).toMatchObject({ document_iteration: 1, graded_by: "server_model", quality_metrics: { last_quality: 0.85 } });
    expect(result.result).toContain("# Microservices or monolith?");
    expect(result.result).toContain("# Position v1\nMonolith first, by dialog.");
    expect(result.result).toContain("| 1 | 0.85 | 0.95 | 0.85 | 0.85 | 0.85 | 0.85 |");
    expect(result.result).toContain("## Directives not yet incorporated");
    expect(result.result).not.toContain("## Iteration 0");
  });

  it("include_full_exchange adds every turn, and the Markdown transcript to a markdown result", async () => {
    const { engine, sessionId } = await finishedDebate();
    const result = getReasoningResultOutputSchema.parse(await engine.invoke("get_reasoning_result", { session_id: sessionId, include_full_exchange: "true" }));
    expect(result.full_exchange?.map((exchange) => `${exchange.iteration}:${exchange.agent}:${exchange.role}:${exchange.consciousness_state}`)).toEqual([
      "0:dialog:initiator:analyzing",
      "0:critic:responder:analyzing",
      "1:dialog:initiator:synthesizing",
      "1:critic:responder:breakthrough",
    ]);
    expect(result.result).toMatch(/## Iteration 0[\s\S]*### dialog writes \(initiator, analyzing\)[\s\S]*### critic reviews[\s\S]*## Iteration 1/);
  });

  it("json: the same report as JSON text; structured: the document as result and the report as data", async () => {
    const { engine, sessionId } = await finishedDebate();
    const json = getReasoningResultOutputSchema.parse(await engine.invoke("get_reasoning_result", { session_id: sessionId, format: "json", include_full_exchange: true }));
    const parsed = JSON.parse(json.result) as Record<string, unknown>;
    expect(parsed).toMatchObject({ session_id: sessionId, mode: "debate", document: "# Position v1\nMonolith first, by dialog.", stop_reason: "threshold_met" });
    expect(parsed["quality_trajectory"]).toHaveLength(2);
    expect(parsed["exchanges"]).toHaveLength(4);
    const structured = getReasoningResultOutputSchema.parse(await engine.invoke("get_reasoning_result", { session_id: sessionId, format: "structured" }));
    expect(structured.result).toBe("# Position v1\nMonolith first, by dialog.");
    expect(structured.structured?.open_directives.map((directive) => directive.agent)).toEqual(["critic", "critic"]);
    expect(structured.structured?.quality_trajectory).toEqual(structured.quality_trajectory);
  });

  it("before the first exchange: in progress, empty result, no invented quality", async () => {
    const testEngine = await createDialogTestEngine(scriptedDialogResponder());
    engines.push(testEngine);
    const started = await testEngine.engine.invoke("start_reasoning_session", { topic: "t" });
    const result = getReasoningResultOutputSchema.parse(await testEngine.engine.invoke("get_reasoning_result", { session_id: started["session_id"], format: "structured" }));
    expect(result).toMatchObject({ status: "in_progress", result: "", quality_metrics: { final_quality: null, iterations: 0, total_tokens: 0, agents_used: [] } });
    expect(result.next_step).toContain("to begin (iteration 0)");
    const status = await testEngine.engine.invoke("get_session_status", { session_id: started["session_id"] });
    expect(status).toMatchObject({ status: "started", current_quality: null, current_iteration: 0, expired: false });
  });
});

describe("list_reasoning_presets", () => {
  it("lists the five presets with agents in speaking order, turns and rubric", async () => {
    const testEngine = await createDialogTestEngine(scriptedDialogResponder());
    engines.push(testEngine);
    const { presets } = listReasoningPresetsOutputSchema.parse(await testEngine.engine.invoke("list_reasoning_presets", {}));
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
      const copied = await engine.invoke("start_reasoning_session", { topic: "t", mode: preset.mode, agents: preset.agents });
      expect(copied["turns"]).toEqual(preset.turns);
      const output = await engine.invoke("run_reasoning_exchange", { session_id: copied["session_id"] });
      const turns = (output["exchanges"] as Array<{ agent: string; act: string }>).map((turn) => `${turn.agent}:${turn.act}`);
      expect(turns).toEqual(preset.turns.flat().map((turn) => `${turn.agent}:${turn.act}`));
    }
  });
});

import { createHostContext, expandNeedsCompletion, needsCompletionSchema } from "@deliberate/contracts";
import { answerDialogPrompt } from "@deliberate/dialog/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, postJson, type RunningService, startService } from "./support/service-harness.ts";

// The dialog module over REST, like every other tool: /v1/tools/{name}, OpenAPI, sessions.
let running: RunningService;
beforeAll(async () => {
  running = await startService();
});
afterAll(async () => {
  await running.stop();
});

describe("dialog sessions over REST", () => {
  it("serves the five tools, runs a session host-executed to threshold_met, and shows it under /v1/sessions", async () => {
    const openapi = await getJson(`${running.url}/openapi.json`);
    for (const tool of [
      "start_reasoning_session",
      "run_reasoning_exchange",
      "get_reasoning_result",
      "list_reasoning_presets",
      "get_session_status",
    ]) {
      expect(Object.keys(openapi.json.paths)).toContain(`/v1/tools/${tool}`);
    }
    const presets = await postJson(`${running.url}/v1/tools/list_reasoning_presets`, {});
    expect(presets.json.presets.map((preset: { name: string }) => preset.name)).toEqual([
      "objective_refinement",
      "exploration",
      "debate",
      "synthesis",
      "code_review",
    ]);

    const started = await postJson(`${running.url}/v1/tools/start_reasoning_session`, {
      topic: "Refine: a budgeting app",
      maxIterations: "3",
      qualityThreshold: "0.6",
    });
    expect(started.status).toBe(200);
    const sessionId = started.json.session_id as string;
    const scores = [0.5, 0.7];
    const statuses: string[] = [];
    for (let iteration = 0; iteration < 2; iteration += 1) {
      let result = await postJson(`${running.url}/v1/tools/run_reasoning_exchange`, { session_id: sessionId });
      const known = createHostContext();
      while (result.json.status === "needs_completion") {
        const answers = expandNeedsCompletion(needsCompletionSchema.parse(result.json), known).map((prompt) => ({
          prompt_id: prompt.id,
          answer: answerDialogPrompt(
            { schemaName: prompt.name, system: prompt.system, user: prompt.user, jsonSchema: prompt.schema },
            { reviewerScore: (turn) => scores[turn.iteration] ?? 0 },
          ),
        }));
        result = await postJson(`${running.url}/v1/tools/reasoning_submit`, {
          resume_token: result.json.resume_token,
          answers,
        });
      }
      expect(result.status).toBe(200);
      statuses.push(result.json.status);
    }
    expect(statuses).toEqual(["in_progress", "threshold_met"]);

    const record = await getJson(`${running.url}/v1/sessions/${sessionId}`);
    expect(record.status).toBe(200);
    expect(record.json.session).toMatchObject({ id: sessionId, mode: "dialog" });
    expect(
      record.json.dialog.iterations.map((iteration: { reviewer_score: number }) => iteration.reviewer_score),
    ).toEqual([0.5, 0.7]);
    const result = await postJson(`${running.url}/v1/tools/get_reasoning_result`, {
      session_id: sessionId,
      format: "json",
    });
    expect(JSON.parse(result.json.result)).toMatchObject({ stop_reason: "threshold_met" });
  });

  it("maps an unknown session to 404 naming session_id, invalid agents and unknown keys to 400 naming the field", async () => {
    const unknown = await postJson(`${running.url}/v1/tools/get_session_status`, { session_id: "ses_nope" });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.json)).toContain("session_id");
    const invalid = await postJson(`${running.url}/v1/tools/start_reasoning_session`, {
      topic: "t",
      agents: [
        { name: "a", role: "r", systemPrompt: "p" },
        { name: "A", role: "r", systemPrompt: "p" },
      ],
    });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.json)).toContain("agents.1.name");
    // Unknown keys are refused, naming the right spelling, instead of the defaults applying silently.
    const misspelt = await postJson(`${running.url}/v1/tools/start_reasoning_session`, {
      topic: "t",
      max_iterations: 7,
      quality_threshold: 0.3,
    });
    expect(misspelt.status).toBe(400);
    expect(JSON.stringify(misspelt.json)).toContain("unknown field 'max_iterations'; did you mean 'maxIterations'?");
    expect(JSON.stringify(misspelt.json)).toContain(
      "unknown field 'quality_threshold'; did you mean 'qualityThreshold'?",
    );
  });
});

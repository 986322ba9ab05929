import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getJson, postJson, type RunningService, startService } from "./support/service-harness.ts";

// A module defined in a test folder (one tool, one mode, one table), plugged in with DELIBERATE_MODULES.
const notesModule = join(import.meta.dirname, "..", "..", "..", "packages", "engine", "test", "fixtures", "notes-module.ts");

describe("a new module plugged in with DELIBERATE_MODULES", () => {
  let running: RunningService | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it("serves its tool over REST and OpenAPI, completes it host-executed with no key, and counts it in metrics", async () => {
    running = await startService({ DELIBERATE_MODULES: notesModule });
    const openapi = await getJson(`${running.url}/openapi.json`);
    expect(Object.keys(openapi.json.paths)).toContain("/v1/tools/notes_take");

    const step = await postJson(`${running.url}/v1/tools/notes_take`, { topic: "caching" });
    expect(step.status).toBe(200);
    expect(step.json.status).toBe("needs_completion");
    const answer = { note: "Invalidate on write.", confidence: 0.7 };
    const done = await postJson(`${running.url}/v1/tools/reasoning_submit`, {
      resume_token: step.json.resume_token,
      answers: [{ prompt_id: step.json.prompts[0].id, answer }],
    });
    expect(done.status).toBe(200);
    expect(done.json).toMatchObject({ note: answer.note, confidence: 0.7 });

    const metrics = await postJson(`${running.url}/v1/tools/reasoning_metrics`, { query: "by_mode", mode_name: "notes_take" });
    expect(metrics.json.mode_stats).toMatchObject({ mode_name: "notes_take", call_count: 1, success_rate: 1 });
  });

  it("refuses to start when a listed module cannot be loaded, naming the variable", async () => {
    await expect(startService({ DELIBERATE_MODULES: join(import.meta.dirname, "no-such-module.ts") })).rejects.toMatchObject({ variables: ["DELIBERATE_MODULES"] });
  });
});

describe("the agent-intent decision", () => {
  let running: RunningService | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it("runs through the engine: each decision is one invocation row, counted in metrics", async () => {
    running = await startService();
    const decided = await postJson(`${running.url}/agent_intent`, { goal_text: "find the config loader", tools: [{ name: "search", input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } }] });
    expect(decided.status).toBe(200);
    expect(decided.json.decided_by).toBe("heuristic");
    const metrics = await postJson(`${running.url}/v1/tools/reasoning_metrics`, { query: "by_mode", tool_name: "agent_intent_decide" });
    expect(metrics.json.mode_stats).toMatchObject({ mode_name: "agent_intent_decide", call_count: 1, success_rate: 1 });
  });

  it("is host-executable over REST when no model is configured", async () => {
    running = await startService();
    const step = await postJson(`${running.url}/v1/tools/agent_intent_decide`, { goal_text: "read a.ts", tools: [{ name: "fs.read_file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }] });
    expect(step.json.status).toBe("needs_completion");
    const answer = { reasoning: "The file is named.", tool_name: "fs.read_file", tool_args: { path: "a.ts" }, final_text: "" };
    const done = await postJson(`${running.url}/v1/tools/reasoning_submit`, { resume_token: step.json.resume_token, answers: [{ prompt_id: step.json.prompts[0].id, answer }] });
    expect(done.json).toMatchObject({ tool_name: "fs.read_file", tool_args: { path: "a.ts" }, decided_by: "model", model: { provider: "host" } });
  });
});

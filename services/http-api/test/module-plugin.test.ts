import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getJson, postJson, type RunningService, startService } from "./support/service-harness.ts";

// A module defined in a test folder (one tool, one mode, one table), plugged in with DELIBERATE_MODULES.
const notesModule = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "packages",
  "engine",
  "test",
  "fixtures",
  "notes-module.ts",
);

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

    const metrics = await postJson(`${running.url}/v1/tools/reasoning_metrics`, {
      query: "by_mode",
      mode_name: "notes_take",
    });
    expect(metrics.json.mode_stats).toMatchObject({ mode_name: "notes_take", call_count: 1, success_rate: 1 });
  });

  it("serves its operations at /v1/notes/*, documented in /openapi.json from their schemas, with errors naming the field", async () => {
    running = await startService({ DELIBERATE_MODULES: notesModule });
    const openapi = (await getJson(`${running.url}/openapi.json`)).json;
    const list = openapi.paths["/v1/notes/sessions/{session_id}"].get;
    expect(list).toMatchObject({
      operationId: "listSessionNotes",
      tags: ["notes"],
      summary: "A session's notes, oldest first (?topic filters)",
    });
    expect(list.parameters).toEqual(
      expect.arrayContaining([
        {
          name: "session_id",
          in: "path",
          required: true,
          schema: { type: "string" },
          description: "The session the notes belong to",
        },
        expect.objectContaining({
          name: "topic",
          in: "query",
          required: false,
          description: "Only notes on this topic",
        }),
      ]),
    );
    expect(list.responses["200"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/NotesList",
    });
    expect(openapi.components.schemas.NotesList).toMatchObject({
      type: "array",
      items: { type: "object", required: expect.arrayContaining(["id", "note"]) },
    });
    const add = openapi.paths["/v1/notes/sessions/{session_id}"].post;
    expect(add.requestBody.content["application/json"].schema).toMatchObject({
      title: "NotesAdd",
      properties: { topic: { type: "string" }, note: { type: "string", maxLength: 200 } },
    });
    expect(add.requestBody.content["application/json"].schema.properties).not.toHaveProperty("session_id");
    expect(Object.keys(add.responses)).toEqual(expect.arrayContaining(["200", "400", "409", "415"]));
    expect(openapi.paths["/v1/notes/count"].get.operationId).toBe("notesCount");

    expect((await getJson(`${running.url}/v1/notes/count`)).json).toEqual({ count: 0 });
    const added = await postJson(`${running.url}/v1/notes/sessions/ses_1`, {
      topic: "caching",
      note: "Invalidate on write.",
      session_id: "ignored: the path wins",
    });
    expect(added.status).toBe(200);
    expect(added.json).toEqual({ note_id: expect.any(String) });
    await postJson(`${running.url}/v1/notes/sessions/ses_1`, { topic: "queues", note: "Lease, then renew." });
    const listed = await getJson(`${running.url}/v1/notes/sessions/ses_1?topic=caching`);
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual([
      expect.objectContaining({ id: added.json.note_id, session_id: "ses_1", note: "Invalidate on write." }),
    ]);
    expect((await getJson(`${running.url}/v1/notes/count`)).json).toEqual({ count: 2 });

    const invalid = await postJson(`${running.url}/v1/notes/sessions/ses_1`, { topic: "", note: "x".repeat(201) });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error.message).toMatch(/^Invalid input for body: /);
    expect(invalid.json.error.issues.map((issue: { field: string }) => issue.field).sort()).toEqual(["note", "topic"]);
    expect((await getJson(`${running.url}/v1/notes/sessions/ses_1?topic=`)).json.error).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "topic" }],
    });
    expect((await postJson(`${running.url}/v1/notes/sessions/ses_1`, "")).json.error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("empty"),
    });
    expect((await postJson(`${running.url}/v1/notes/sessions/ses_1`, "[1]")).json.error).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "(input)" }],
    });
    const plain = await fetch(`${running.url}/v1/notes/sessions/ses_1`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: '{"topic":"a","note":"b"}',
    });
    expect(plain.status).toBe(415);
    expect((await getJson(`${running.url}/v1/notes/sessions/s%00x`)).json.error).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "session_id" }],
    });
    expect((await getJson(`${running.url}/v1/notes/count`)).json).toEqual({ count: 2 });
  });

  it("refuses to start when a listed module cannot be loaded, naming the variable", async () => {
    await expect(
      startService({ DELIBERATE_MODULES: join(import.meta.dirname, "no-such-module.ts") }),
    ).rejects.toMatchObject({ variables: ["DELIBERATE_MODULES"] });
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
    const decided = await postJson(`${running.url}/agent_intent`, {
      goal_text: "find the config loader",
      tools: [
        {
          name: "search",
          input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
        },
      ],
    });
    expect(decided.status).toBe(200);
    expect(decided.json.decided_by).toBe("heuristic");
    const metrics = await postJson(`${running.url}/v1/tools/reasoning_metrics`, {
      query: "by_mode",
      tool_name: "agent_intent_decide",
    });
    expect(metrics.json.mode_stats).toMatchObject({ mode_name: "agent_intent_decide", call_count: 1, success_rate: 1 });
  });

  it("is host-executable over REST when no model is configured", async () => {
    running = await startService();
    const step = await postJson(`${running.url}/v1/tools/agent_intent_decide`, {
      goal_text: "read a.ts",
      tools: [
        {
          name: "fs.read_file",
          input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      ],
    });
    expect(step.json.status).toBe("needs_completion");
    const answer = {
      reasoning: "The file is named.",
      tool_name: "fs.read_file",
      tool_args: { path: "a.ts" },
      final_text: "",
    };
    const done = await postJson(`${running.url}/v1/tools/reasoning_submit`, {
      resume_token: step.json.resume_token,
      answers: [{ prompt_id: step.json.prompts[0].id, answer }],
    });
    expect(done.json).toMatchObject({
      tool_name: "fs.read_file",
      tool_args: { path: "a.ts" },
      decided_by: "model",
      model: { provider: "host" },
    });
  });
});

describe("the HTTP API knows no module by name", () => {
  it("imports nothing of @deliberate/self-improvement: its routes are the module's operations, mounted generically", () => {
    const source = join(import.meta.dirname, "..", "src");
    const files = readdirSync(source, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(20);
    const naming = files.filter((file) =>
      /@deliberate\/self-improvement|selfImprovement|SelfImprovement/.test(readFileSync(join(source, file), "utf8")),
    );
    expect(naming).toEqual([]);
  });
});

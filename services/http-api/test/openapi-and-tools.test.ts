import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiValidator } from "./support/openapi-validator.ts";
import { getJson, postJson, startService, type RunningService } from "./support/service-harness.ts";

let running: RunningService;
beforeAll(async () => {
  running = await startService();
});
afterAll(async () => {
  await running.stop();
});

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document whose references all resolve", async () => {
    const response = await getJson(`${running.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.json.openapi).toBe("3.1.0");
    const validator = openApiValidator();
    const result = await validator.validate(response.json);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const resolved = validator.resolveRefs() as { paths: Record<string, unknown> };
    expect(JSON.stringify(resolved)).not.toContain('"$ref":"#/');
    // The OpenAPI meta-schema leaves schema objects open; check each against JSON Schema 2020-12 itself.
    const ajv = new Ajv2020({ strict: false });
    for (const [name, schema] of Object.entries(response.json.components.schemas as Record<string, object>)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    }
  });

  it("describes every tool of the engine at /v1/tools/{name} with its input and output schema", async () => {
    const document = (await getJson(`${running.url}/openapi.json`)).json;
    const tools = running.service.engine.tools;
    expect(tools.length).toBeGreaterThanOrEqual(6);
    for (const tool of tools) {
      const operation = document.paths[`/v1/tools/${tool.name}`]?.post;
      expect(operation, tool.name).toBeDefined();
      expect(operation.operationId).toBe(`tool_${tool.name}`);
      // Request bodies are inline (see inlineRequestSchema); responses are components.
      const input = operation.requestBody.content["application/json"].schema;
      const output = operation.responses["200"].content["application/json"].schema.$ref as string;
      expect(input.type).toBe("object");
      expect(input.title).toMatch(/Input$/);
      expect(document.components.schemas[output.split("/").at(-1) as string]).toBeDefined();
    }
    for (const path of [
      "/agent_intent",
      "/agent_intent_async",
      "/agent_intent_cancel",
      "/workflow_intent",
      "/healthz",
      "/health",
      "/v1/jobs/{job_id}",
      "/v1/sessions/{session_id}",
      "/v1/sessions/{session_id}/thoughts",
      "/v1/workflows",
      "/v1/tools",
    ]) {
      expect(document.paths[path], path).toBeDefined();
    }
    const request = document.paths["/agent_intent"].post.requestBody.content["application/json"].schema;
    expect(Object.keys(request.properties)).toEqual(
      expect.arrayContaining([
        "session_id",
        "persona",
        "driver",
        "rules",
        "instructions",
        "llm",
        "repo_context",
        "memory_state",
        "history",
        "goal_text",
        "forced_tool",
        "max_steps",
        "agent_state",
        "callback_url",
        "correlation_id",
        "tools",
      ]),
    );
    expect(document.components.schemas["ErrorResponse"].properties.error).toBeDefined();
  });

  it("serves a docs page that lists the operations and links the document", async () => {
    const response = await fetch(`${running.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain('href="openapi.json"');
    expect(html).toContain("/agent_intent");
    expect(html).toContain("/v1/tools/reasoning_linear");
  });
});

describe("every tool over REST", () => {
  it("reaches every tool definition at POST /v1/tools/{name}", async () => {
    for (const tool of running.service.engine.tools) {
      const response = await postJson(`${running.url}/v1/tools/${tool.name}`, {});
      // Each route exists and runs the engine: {} is either valid or rejected by the tool's own schema.
      expect([200, 400], `${tool.name}: ${response.text}`).toContain(response.status);
      if (response.status === 400) expect(response.json.error.code).toBe("INVALID_INPUT");
    }
    const unknown = await postJson(`${running.url}/v1/tools/reasoning_nope`, {});
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.hint).toContain("reasoning_linear");
  });

  it("runs a tool, records the session and reads it back", async () => {
    // Without a model, linear is host-executed: it returns its prompt and a resume token...
    const suspended = await postJson(`${running.url}/v1/tools/reasoning_linear`, { content: "Is 91 prime?" });
    expect(suspended.status).toBe(200);
    expect(suspended.json.status).toBe("needs_completion");
    const prompt = suspended.json.prompts[0];
    // ...which reasoning_submit completes over REST like any other tool.
    const completed = await postJson(`${running.url}/v1/tools/reasoning_submit`, {
      resume_token: suspended.json.resume_token,
      answers: [
        {
          prompt_id: prompt.id,
          answer: { content: "91 = 7 x 13, so it is not prime.", confidence: 0.95, next_step: "State the answer." },
        },
      ],
    });
    expect(completed.status).toBe(200);
    const sessionId = completed.json.session_id as string;
    expect(completed.json.content).toContain("7 x 13");

    const checkpoint = await postJson(`${running.url}/v1/tools/reasoning_checkpoint`, {
      operation: "create",
      session_id: sessionId,
      name: "after-91",
    });
    expect(checkpoint.status).toBe(200);

    const record = await getJson(`${running.url}/v1/sessions/${sessionId}`);
    expect(record.status).toBe(200);
    expect(record.json.session.id).toBe(sessionId);
    expect(record.json.thoughts.map((thought: { content: string }) => thought.content)).toContain(
      "91 = 7 x 13, so it is not prime.",
    );
    expect(record.json.checkpoints).toHaveLength(1);
    const thoughts = await getJson(`${running.url}/v1/sessions/${sessionId}/thoughts`);
    expect(thoughts.json).toMatchObject({ session_id: sessionId });
    expect(thoughts.json.thoughts.length).toBe(record.json.thoughts.length);

    const missing = await getJson(`${running.url}/v1/sessions/ses_missing`);
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("NOT_FOUND");
  });

  it("streams a tool's result as Server-Sent Events when asked", async () => {
    const response = await fetch(`${running.url}/v1/tools/reasoning_checkpoint`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ operation: "list", session_id: "ses_missing" }),
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const text = await response.text();
    expect(text).toContain("event: error");
    expect(text).toContain('"code":"NOT_FOUND"');
  });

  it("lists the tools with their JSON Schemas", async () => {
    const response = await getJson(`${running.url}/v1/tools`);
    expect(response.json.tools.map((tool: { name: string }) => tool.name)).toEqual(
      running.service.engine.tools.map((tool) => tool.name),
    );
    expect(response.json.tools[0].input_schema.type).toBe("object");
    // Fields that also accept strings keep their defaults.
    const mcts = response.json.tools.find((tool: { name: string }) => tool.name === "reasoning_mcts");
    expect(mcts.input_schema.properties.iterations.default).toBe(10);
  });
});

describe("POST /workflow_intent", () => {
  it("walks chain_of_thought from start to finish", async () => {
    const start = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r1",
      workflow_name: "chain_of_thought",
      params: { problem: "Build auth system" },
    });
    expect(start.status).toBe(200);
    expect(start.json).toMatchObject({
      status: "ok",
      next_node: "decompose",
      action_type: "submit_thought",
      finish: false,
      step_number: 1,
      total_steps: 3,
      save_as: "decomposition",
    });
    expect(start.json.instruction).toContain('"Build auth system"');
    expect(Object.keys(start.json).slice(0, 10)).toEqual([
      "status",
      "duration_ms",
      "intent_id",
      "next_node",
      "action_type",
      "tool_name",
      "tool_args",
      "reasoning",
      "finish",
      "trace",
    ]);

    const outputs: Record<string, string> = { decomposition: "1. users 2. tokens 3. middleware" };
    const second = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r1",
      workflow_name: "chain_of_thought",
      current_node: "decompose",
      params: { problem: "Build auth system" },
      outputs,
    });
    expect(second.json).toMatchObject({ next_node: "analyze", step_number: 2 });
    expect(second.json.instruction).toContain("1. users 2. tokens 3. middleware");

    outputs["analysis"] = "users need hashed passwords";
    const third = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r1",
      workflow_name: "chain_of_thought",
      current_node: "analyze",
      params: { problem: "Build auth system" },
      outputs,
    });
    expect(third.json).toMatchObject({ next_node: "synthesize" });

    outputs["synthesis"] = "the full plan";
    const done = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r1",
      workflow_name: "chain_of_thought",
      current_node: "synthesize",
      params: { problem: "Build auth system" },
      outputs,
    });
    expect(done.json).toMatchObject({ finish: true, next_node: null, action_type: "finish", answers: outputs });
  });

  it("says which answer or workflow is missing", async () => {
    const missingAnswer = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r1",
      workflow_name: "decision_making",
      current_node: "frame",
      params: { decision: "Which DB?" },
    });
    expect(missingAnswer.status).toBe(400);
    expect(missingAnswer.json.error.issues[0].field).toBe("outputs.framing");
    // A run whose earlier answers were not sent is refused, not completed (it completed with one answer before).
    const unseen = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r9",
      workflow_name: "chain_of_thought",
      current_node: "synthesize",
      params: { problem: "x" },
      outputs: { synthesis: "a plan" },
    });
    expect(unseen.status).toBe(400);
    expect(unseen.json.error).toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "outputs.decomposition" }, { field: "outputs.analysis" }],
    });
    expect(unseen.json.error.message).toContain("the answer to earlier step 'decompose'");
    expect(unseen.json.error.hint).toContain("Send every answer of the run so far in outputs");
    const partly = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r9",
      workflow_name: "chain_of_thought",
      current_node: "analyze",
      params: { problem: "x" },
      outputs: { analysis: "a", decomposition: " " },
    });
    expect(partly.json.error.issues).toEqual([
      {
        field: "outputs.decomposition",
        message: "the answer to earlier step 'decompose' (decomposition into sub-tasks) is missing",
      },
    ]);
    // An earlier answer sent under its step id counts.
    const byStepId = await postJson(`${running.url}/workflow_intent`, {
      run_id: "r9",
      workflow_name: "chain_of_thought",
      current_node: "analyze",
      params: { problem: "x" },
      outputs: { analysis: "a", decompose: "d" },
    });
    expect(byStepId.json).toMatchObject({ next_node: "synthesize" });
    const unknown = await postJson(`${running.url}/workflow_intent`, { run_id: "r1", workflow_name: "nope" });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.hint).toContain("root_cause_analysis");
    const list = await getJson(`${running.url}/v1/workflows`);
    expect(list.json.workflows.map((workflow: { name: string }) => workflow.name)).toEqual([
      "chain_of_thought",
      "root_cause_analysis",
      "decision_making",
      "plan_and_execute",
    ]);
  });
});

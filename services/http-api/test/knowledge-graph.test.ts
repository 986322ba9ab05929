import { endSessionResponseSchema, executeTaskResponseSchema, type ExecuteTaskResponse, needsCompletionSchema, reasoningCapabilitySchema } from "@deliberate/contracts";
import { answerFor, scenarioDeducedTriples, scenarioDomainKnowledge, scenarioWeatherTool } from "@deliberate/knowledge-graph/testing";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, postJson, startService, type RunningService } from "./support/service-harness.ts";

// The knowledge-graph module over REST on the real service: the capability at
// GET /v1/reasoning/capabilities, reasoning/executeTask and reasoning/endSession at
// POST /v1/methods/{method} and as tools at POST /v1/tools/{name}; with a model
// (the loopback fake model server) and with no key (needs_completion rounds).

const deductive = { reasoningType: "deductive", goalQuery: "Is Alice an ancestor of Dave?", contextData: { domainKnowledge: scenarioDomainKnowledge } };
const planned = { reasoningType: "planAndExecuteCoT", goalQuery: "Should the family picnic in Paris go ahead on Saturday?", contextData: { availableTools: [scenarioWeatherTool] } };

function client(running: () => RunningService) {
  async function post(path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; rounds: number }> {
    let response = await postJson(`${running().url}${path}`, body);
    let rounds = 0;
    while (response.status === 200 && response.json?.status === "needs_completion") {
      rounds += 1;
      const step = needsCompletionSchema.parse(response.json);
      response = await postJson(`${running().url}/v1/tools/reasoning_submit`, {
        resume_token: step.resume_token,
        answers: step.prompts.map((prompt) => ({ prompt_id: prompt.id, answer: answerFor(prompt.name, prompt.user) })),
      });
    }
    return { status: response.status, json: response.json, rounds };
  }
  async function execute(body: Record<string, unknown>, path = "/v1/methods/reasoning/executeTask"): Promise<ExecuteTaskResponse & { rounds: number }> {
    const { status, json, rounds } = await post(path, body);
    expect(status, JSON.stringify(json)).toBe(200);
    return { ...executeTaskResponseSchema.parse(json), rounds };
  }
  return { post, execute };
}

async function roundTrips(execute: ReturnType<typeof client>["execute"], prefix: string) {
  const first = await execute({ taskId: `${prefix}-1`, ...planned });
  expect(first.status).toBe("pending_tool_call");
  const second = await execute({ taskId: `${prefix}-2`, ...planned, reasoningSessionId: first.reasoningSessionId, toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: "rain" }] });
  expect(second.status).toBe("pending_user_input");
  const third = await execute({ taskId: `${prefix}-3`, ...planned, sessionState: second.updatedSessionState, userInput: "Yes." });
  expect(third.status).toBe("completed");
}

describe("knowledge-graph over REST with a server-side model", () => {
  let fake: FakeModelServer;
  let running: RunningService;
  const { post, execute } = client(() => running);

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }) });
    running = await startService({ OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "test" });
  });
  afterAll(async () => {
    await running?.stop();
    await fake?.close();
  });

  it("publishes the capability at GET /v1/reasoning/capabilities and in OpenAPI", async () => {
    const response = await getJson(`${running.url}/v1/reasoning/capabilities`);
    expect(response.status).toBe(200);
    expect(reasoningCapabilitySchema.parse(response.json).supportedReasoningTypes).toEqual(["inductive", "deductive", "abductive", "planAndExecuteCoT"]);
    expect((await getJson(`${running.url}/v1/capabilities`)).json.reasoning).toEqual(response.json);
    // Clients may cache it for a while (the client's capability cache honours the hint).
    expect(response.headers.get("cache-control")).toBe("private, max-age=300");
    const document = (await getJson(`${running.url}/openapi.json`)).json;
    for (const path of ["/v1/reasoning/capabilities", "/v1/methods/reasoning/executeTask", "/v1/methods/reasoning/endSession", "/v1/tools/reasoning_execute_task"]) {
      expect(document.paths[path], path).toBeDefined();
    }
  });

  it("completes every reasoning type and both round trips, by method and by tool", async () => {
    const deduced = await execute({ taskId: "d-1", ...deductive });
    expect(new Set(deduced.result?.reasoningTrace?.derivations.map((item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`))).toEqual(new Set(scenarioDeducedTriples));
    expect((await execute({ taskId: "i-1", reasoningType: "inductive", goalQuery: "What do they share?", preferredCoTVariation: "selfAsk" }, "/v1/tools/reasoning_execute_task")).status).toBe("completed");
    expect((await execute({ taskId: "a-1", reasoningType: "abductive", goalQuery: "Where does Dave live?" })).status).toBe("completed");
    await roundTrips(execute, "rest");
  });

  it("ends a session, and refuses a tampered state and bad requests with the field named", async () => {
    const first = await execute({ taskId: "e-1", ...deductive });
    const token = first.updatedSessionState?.token as string;
    const tampered = await post("/v1/methods/reasoning/executeTask", { taskId: "e-2", ...deductive, sessionState: { token: `x${token.slice(1)}` } });
    expect(tampered.status).toBe(400);
    expect(tampered.json).toMatchObject({ status: "error", error: { code: "INVALID_INPUT", issues: [{ field: "sessionState" }] } });
    const bad = await post("/v1/methods/reasoning/executeTask", { taskId: "e-3", reasoningType: "deductive", goalQuery: "" });
    expect(bad.json.error).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "goalQuery" }] });
    const ended = await post("/v1/methods/reasoning/endSession", { reasoningSessionId: first.reasoningSessionId });
    expect(endSessionResponseSchema.parse(ended.json)).toMatchObject({ status: "ended", alreadyClosed: false });
    const gone = await post("/v1/methods/reasoning/executeTask", { taskId: "e-4", ...deductive, reasoningSessionId: first.reasoningSessionId });
    expect(gone.status).toBe(404);
    const session = await getJson(`${running.url}/v1/sessions/${first.reasoningSessionId}`);
    expect(session.json.knowledgeGraph).toMatchObject({ state: "ended" });
  });
});

describe("knowledge-graph over REST with no key", () => {
  let running: RunningService;
  const { execute } = client(() => running);

  beforeAll(async () => {
    running = await startService();
  });
  afterAll(async () => {
    await running?.stop();
  });

  it("completes through needs_completion rounds, round trips included", async () => {
    const deduced = await execute({ taskId: "d-1", ...deductive });
    expect(deduced.status).toBe("completed");
    expect(deduced.rounds).toBeGreaterThanOrEqual(3);
    for (const reasoningType of ["inductive", "abductive"]) expect((await execute({ taskId: `${reasoningType}-1`, reasoningType, goalQuery: "What is common?" })).status).toBe("completed");
    await roundTrips(execute, "keyless");
  });
});

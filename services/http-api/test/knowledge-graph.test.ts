import {
  endSessionResponseSchema,
  executeTaskResponseSchema,
  type ExecuteTaskResponse,
  needsCompletionSchema,
  reasoningCapabilitySchema,
  createHostContext,
  expandNeedsCompletion,
} from "@deliberate/contracts";
import {
  answerFor,
  scenarioDeducedTriples,
  scenarioDomainKnowledge,
  scenarioWeatherTool,
} from "@deliberate/knowledge-graph/testing";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { getJson, postJson, startService, temporaryDirectory, type RunningService } from "./support/service-harness.ts";

// The knowledge-graph module over REST on the real service: the capability at
// GET /v1/reasoning/capabilities, reasoning/executeTask and reasoning/endSession at
// POST /v1/methods/{method} and as tools at POST /v1/tools/{name}; with a model
// (the loopback fake model server) and with no key (needs_completion rounds).

const deductive = {
  reasoningType: "deductive",
  goalQuery: "Is Alice an ancestor of Dave?",
  contextData: { domainKnowledge: scenarioDomainKnowledge },
};
const planned = {
  reasoningType: "planAndExecuteCoT",
  goalQuery: "Should the family picnic in Paris go ahead on Saturday?",
  contextData: { availableTools: [scenarioWeatherTool] },
};

function client(running: () => RunningService, token?: string) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  async function post(
    path: string,
    body: unknown,
  ): Promise<{ status: number; json: Record<string, unknown>; rounds: number }> {
    let response = await postJson(`${running().url}${path}`, body, headers);
    let rounds = 0;
    const known = createHostContext();
    while (response.status === 200 && response.json?.status === "needs_completion") {
      rounds += 1;
      const step = needsCompletionSchema.parse(response.json);
      response = await postJson(
        `${running().url}/v1/tools/reasoning_submit`,
        {
          resume_token: step.resume_token,
          answers: expandNeedsCompletion(step, known).map((prompt) => ({
            prompt_id: prompt.id,
            answer: answerFor(prompt.name, prompt.user),
          })),
        },
        headers,
      );
    }
    return { status: response.status, json: response.json, rounds };
  }
  async function execute(
    body: Record<string, unknown>,
    path = "/v1/methods/reasoning/executeTask",
  ): Promise<ExecuteTaskResponse & { rounds: number }> {
    const { status, json, rounds } = await post(path, body);
    expect(status, JSON.stringify(json)).toBe(200);
    return { ...executeTaskResponseSchema.parse(json), rounds };
  }
  return { post, execute };
}

async function roundTrips(execute: ReturnType<typeof client>["execute"], prefix: string) {
  const first = await execute({ taskId: `${prefix}-1`, ...planned });
  expect(first.status).toBe("pending_tool_call");
  // Without a token the service cannot tell callers apart: a session is continued by its signed state.
  const second = await execute({
    taskId: `${prefix}-2`,
    ...planned,
    sessionState: first.updatedSessionState,
    toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: "rain" }],
  });
  expect(second.status).toBe("pending_user_input");
  const third = await execute({
    taskId: `${prefix}-3`,
    ...planned,
    sessionState: second.updatedSessionState,
    userInput: "Yes.",
  });
  expect(third.status).toBe("completed");
}

describe("knowledge-graph over REST with a server-side model", () => {
  let fake: FakeModelServer;
  let running: RunningService;
  const { post, execute } = client(() => running);

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    running = await startService({ OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "test" });
  });
  afterAll(async () => {
    await running?.stop();
    await fake?.close();
  });

  it("publishes the capability at GET /v1/reasoning/capabilities and in OpenAPI", async () => {
    const response = await getJson(`${running.url}/v1/reasoning/capabilities`);
    expect(response.status).toBe(200);
    expect(reasoningCapabilitySchema.parse(response.json).supportedReasoningTypes).toEqual([
      "inductive",
      "deductive",
      "abductive",
      "planAndExecuteCoT",
    ]);
    expect((await getJson(`${running.url}/v1/capabilities`)).json.reasoning).toEqual(response.json);
    // Clients may cache it for a while (the client's capability cache honours the hint).
    expect(response.headers.get("cache-control")).toBe("private, max-age=300");
    const document = (await getJson(`${running.url}/openapi.json`)).json;
    for (const path of [
      "/v1/reasoning/capabilities",
      "/v1/methods/reasoning/executeTask",
      "/v1/methods/reasoning/endSession",
      "/v1/tools/reasoning_execute_task",
    ]) {
      expect(document.paths[path], path).toBeDefined();
    }
  });

  it("completes every reasoning type and both round trips, by method and by tool", async () => {
    const deduced = await execute({ taskId: "d-1", ...deductive });
    expect(
      new Set(
        deduced.result?.reasoningTrace?.derivations.map(
          (item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`,
        ),
      ),
    ).toEqual(new Set(scenarioDeducedTriples));
    expect(
      (
        await execute(
          {
            taskId: "i-1",
            reasoningType: "inductive",
            goalQuery: "What do they share?",
            preferredCoTVariation: "selfAsk",
          },
          "/v1/tools/reasoning_execute_task",
        )
      ).status,
    ).toBe("completed");
    expect(
      (await execute({ taskId: "a-1", reasoningType: "abductive", goalQuery: "Where does Dave live?" })).status,
    ).toBe("completed");
    await roundTrips(execute, "rest");
  });

  it("ends a session, and refuses a tampered state and bad requests with the field named", async () => {
    const first = await execute({ taskId: "e-1", ...deductive });
    const token = first.updatedSessionState?.token as string;
    const tampered = await post("/v1/methods/reasoning/executeTask", {
      taskId: "e-2",
      ...deductive,
      sessionState: { token: `x${token.slice(1)}` },
    });
    expect(tampered.status).toBe(400);
    expect(tampered.json).toMatchObject({
      status: "error",
      error: { code: "INVALID_INPUT", issues: [{ field: "sessionState" }] },
    });
    const bad = await post("/v1/methods/reasoning/executeTask", {
      taskId: "e-3",
      reasoningType: "deductive",
      goalQuery: "",
    });
    expect(bad.json.error).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "goalQuery" }] });
    const ended = await post("/v1/methods/reasoning/endSession", {
      reasoningSessionId: first.reasoningSessionId,
      sessionState: first.updatedSessionState,
    });
    expect(endSessionResponseSchema.parse(ended.json)).toMatchObject({ status: "ended", alreadyClosed: false });
    const gone = await post("/v1/methods/reasoning/executeTask", {
      taskId: "e-4",
      ...deductive,
      sessionState: first.updatedSessionState,
    });
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
    for (const reasoningType of ["inductive", "abductive"])
      expect(
        (await execute({ taskId: `${reasoningType}-1`, reasoningType, goalQuery: "What is common?" })).status,
      ).toBe("completed");
    await roundTrips(execute, "keyless");
  });
});

describe("knowledge-graph sessions over REST: the signed state or the token holder the session is bound to", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let holderA: RunningService;
  let holderB: RunningService;
  let anonymous: RunningService;
  const a = client(() => holderA, "token-of-caller-a-0123456789");
  const b = client(() => holderB, "token-of-caller-b-0123456789");
  const nobody = client(() => anonymous);

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    // Three services on one database: two with their own tokens (two callers), one without (anonymous).
    const shared = {
      DATABASE_PATH: join(directory.path, "shared.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
      KNOWLEDGE_GRAPH_STATE_SECRET: "one secret for all three services",
    };
    holderA = await startService({ ...shared, REASONING_API_TOKEN: "token-of-caller-a-0123456789" });
    holderB = await startService({ ...shared, REASONING_API_TOKEN: "token-of-caller-b-0123456789" });
    anonymous = await startService(shared);
  });
  afterAll(async () => {
    await Promise.all([holderA?.stop(), holderB?.stop(), anonymous?.stop()]);
    await fake?.close();
    directory.remove();
  });

  it("the token holder continues and ends by id; another holder and an anonymous caller need the state; a forged state is refused", async () => {
    const first = await a.execute({ taskId: "b-1", ...deductive, reasoningSessionId: "rest-bound" });
    expect(first.status).toBe("completed");
    expect(first.sessionExpiresAt).toMatch(/^\d{4}-/);
    expect(
      (
        await a.execute(
          { taskId: "b-2", ...deductive, reasoningSessionId: "rest-bound" },
          "/v1/tools/reasoning_execute_task",
        )
      ).status,
    ).toBe("completed");

    for (const other of [b, nobody]) {
      for (const path of ["/v1/methods/reasoning/executeTask", "/v1/tools/reasoning_execute_task"]) {
        const refused = await other.post(path, { taskId: "b-3", ...deductive, reasoningSessionId: "rest-bound" });
        expect(refused.status).toBe(409);
        expect(refused.json).toMatchObject({ error: { code: "CONFLICT", issues: [{ field: "sessionState" }] } });
      }
      expect((await other.post("/v1/methods/reasoning/endSession", { reasoningSessionId: "rest-bound" })).status).toBe(
        409,
      );
      const forged = await other.post("/v1/methods/reasoning/executeTask", {
        taskId: "b-4",
        ...deductive,
        sessionState: {
          token: `kg1.${Buffer.from(JSON.stringify({ s: "rest-bound", r: 2 })).toString("base64url")}.AAAA`,
        },
      });
      expect(forged.status).toBe(400);
      expect(forged.json).toMatchObject({ error: { code: "INVALID_INPUT", issues: [{ field: "sessionState" }] } });
    }
    // The state is the session's capability: with it, any caller continues (and may end) the session.
    const latest = await a.execute({ taskId: "b-5", ...deductive, reasoningSessionId: "rest-bound" });
    const continued = await b.execute({ taskId: "b-6", ...deductive, sessionState: latest.updatedSessionState });
    expect(continued).toMatchObject({ status: "completed", reasoningSessionId: "rest-bound" });
    const ended = await nobody.post("/v1/tools/reasoning_end_session", { sessionState: continued.updatedSessionState });
    expect(ended.json).toMatchObject({ reasoningSessionId: "rest-bound", status: "ended" });
  });

  it("the cap refusal names no session", async () => {
    const capped = await startService({
      DATABASE_PATH: join(directory.path, "capped.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
      KNOWLEDGE_GRAPH_MAX_SESSIONS: "1",
    });
    try {
      const c = client(() => capped);
      await c.execute({ taskId: "cap-1", ...deductive, reasoningSessionId: "someone-elses" });
      const refused = await c.post("/v1/methods/reasoning/executeTask", { taskId: "cap-2", ...deductive });
      expect(refused.status).toBe(422);
      expect(refused.json).toMatchObject({ error: { code: "LIMIT_EXCEEDED" } });
      expect(JSON.stringify(refused.json)).not.toMatch(/someone-elses/);
    } finally {
      await capped.stop();
    }
  });

  it("pages the graph of a session read like its thoughts", async () => {
    const first = await a.execute({ taskId: "p-1", ...deductive, reasoningSessionId: "rest-paged" });
    expect(first.status).toBe("completed");
    const whole = await getJson(`${holderA.url}/v1/sessions/rest-paged?limit=1000`, {
      authorization: "Bearer token-of-caller-a-0123456789",
    });
    const relations = whole.json.knowledgeGraph.relations as unknown[];
    expect(relations.length).toBeGreaterThan(4);
    const page = await getJson(`${holderA.url}/v1/sessions/rest-paged?limit=2&offset=2`, {
      authorization: "Bearer token-of-caller-a-0123456789",
    });
    expect(page.status).toBe(200);
    expect(page.json.knowledgeGraph.relations).toEqual(relations.slice(2, 4));
    expect(page.json.knowledgeGraph.entities).toHaveLength(2);
    expect(page.json.knowledgeGraph.relationCount).toBe(relations.length);
    expect(page.json.page).toMatchObject({ offset: 2, limit: 2, next_offset: 4 });
    expect(page.json.page.totals["knowledgeGraph.relations"]).toBe(relations.length);
  });
});

describe("knowledge-graph over REST when the model fails", () => {
  let fake: FakeModelServer;
  let running: RunningService;
  const { post, execute } = client(() => running);

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond: { status: 503, message: "the model is overloaded" } });
    running = await startService({ OPENAI_BASE_URL: fake.openaiBaseURL, OPENAI_API_KEY: "test", MAX_RETRIES: "0" });
  });
  afterAll(async () => {
    await running?.stop();
    await fake?.close();
  });

  it("answers 200 with status failed and a typed, retryable error, by method and by tool; bad input stays a 400", async () => {
    for (const path of ["/v1/methods/reasoning/executeTask", "/v1/tools/reasoning_execute_task"]) {
      const failed = await execute({ taskId: "f-1", ...deductive }, path);
      expect(failed).toMatchObject({
        status: "failed",
        result: null,
        reasoningSessionId: null,
        updatedSessionState: null,
        error: { reason: "PROVIDER_UNAVAILABLE", code: 5023, retryable: true },
      });
    }
    const bad = await post("/v1/methods/reasoning/executeTask", {
      taskId: "f-2",
      ...deductive,
      reasoningType: "guess",
    });
    expect(bad.status).toBe(400);
  });
});

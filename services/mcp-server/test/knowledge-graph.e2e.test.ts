import { join } from "node:path";
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
import { type Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { testClient } from "./support/test-client.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startHttpServer, type HttpServerProcess } from "./support/http-process.ts";
import { startStdioServer, temporaryDirectory, type StdioServer } from "./support/server-process.ts";

// The knowledge-graph module end to end on the built server: reasoning/executeTask and
// reasoning/endSession as custom JSON-RPC methods sent by the real SDK client (stdio and
// Streamable HTTP), the same as tools, with a server-side model (the loopback fake model
// server) and with no key (host-executed, through needs_completion rounds).

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
const anyResult = z.record(z.string(), z.unknown());

/** A JSON-RPC error as the client surfaces it: code, message and our error body in data. */
async function protocolErrorOf(promise: Promise<unknown>): Promise<{
  code: number;
  message: string;
  data: { code: string; issues?: Array<{ field: string }>; hint?: string };
}> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, "expected the request to fail").toBeDefined();
  return error as never;
}

/**
 * Sends reasoning/executeTask (or endSession) and, host-executed, answers every needs_completion
 * round through reasoning_submit with the scenario, as the calling agent would.
 */
function sender(client: () => Client) {
  async function method(
    name: string,
    params: Record<string, unknown>,
  ): Promise<{ result: Record<string, unknown>; rounds: number }> {
    let result = await client().request({ method: name, params }, anyResult);
    let rounds = 0;
    const known = createHostContext();
    while (result["status"] === "needs_completion") {
      rounds += 1;
      const step = needsCompletionSchema.parse(result);
      const submitted = await client().callTool({
        name: "reasoning_submit",
        arguments: {
          resume_token: step.resume_token,
          answers: expandNeedsCompletion(step, known).map((prompt) => ({
            prompt_id: prompt.id,
            answer: answerFor(prompt.name, prompt.user),
          })),
        },
      });
      expect(submitted.isError, JSON.stringify(submitted.content)).toBeFalsy();
      result = submitted.structuredContent as Record<string, unknown>;
    }
    return { result, rounds };
  }
  return {
    method,
    async execute(params: Record<string, unknown>): Promise<ExecuteTaskResponse & { rounds: number }> {
      const { result, rounds } = await method("reasoning/executeTask", params);
      return { ...executeTaskResponseSchema.parse(result), rounds };
    },
  };
}

/** The tool round trip and the user-input round trip of the scenario's plan, over `execute`. */
async function planRoundTrips(execute: ReturnType<typeof sender>["execute"], taskPrefix: string) {
  const first = await execute({ taskId: `${taskPrefix}-1`, ...planned });
  expect(first.status).toBe("pending_tool_call");
  expect(first.toolCallRequest).toMatchObject({ toolName: "weather", toolArguments: { city: "Paris" } });
  const second = await execute({
    taskId: `${taskPrefix}-2`,
    ...planned,
    sessionState: first.updatedSessionState,
    toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: { forecast: "rain" } }],
  });
  expect(second.status).toBe("pending_user_input");
  expect(second.userInputRequest).toBe("Does the group have umbrellas?");
  const third = await execute({
    taskId: `${taskPrefix}-3`,
    ...planned,
    reasoningSessionId: first.reasoningSessionId,
    userInput: "Yes, everyone has one.",
  });
  expect(third.status).toBe("completed");
  expect(third.result?.plan?.steps.map((step) => step.status)).toEqual(["done", "done", "done"]);
  expect(third.result?.reasoningTrace?.subgraph.entities.map((entity) => entity.name)).toEqual(
    expect.arrayContaining(["Rain", "Umbrella"]),
  );
  return third;
}

describe("reasoning/executeTask over stdio with a server-side model", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let server: StdioServer;
  const { execute, method } = sender(() => server.client);

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    server = await startStdioServer({
      DATABASE_PATH: join(directory.path, "kg.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory.remove();
  });

  it("advertises the reasoning capability at initialize, generated from what is implemented", () => {
    const capability = reasoningCapabilitySchema.parse(
      server.client.getServerCapabilities()?.experimental?.["reasoning"],
    );
    expect(capability.supportedReasoningTypes).toEqual(["inductive", "deductive", "abductive", "planAndExecuteCoT"]);
    expect(capability.supportedCoTVariations).toEqual([
      "standardCoT",
      "selfConsistency",
      "selfAsk",
      "treeOfThoughts_basic",
    ]);
    expect(capability.methods).toEqual(["reasoning/executeTask", "reasoning/endSession"]);
  });

  it("completes every reasoning type, the deductive chain deriving its triples in code with derivations", async () => {
    const deduced = await execute({ taskId: "d-1", ...deductive });
    expect(deduced.status).toBe("completed");
    const derivations = deduced.result?.reasoningTrace?.derivations ?? [];
    expect(
      new Set(derivations.map((item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`)),
    ).toEqual(new Set(scenarioDeducedTriples));
    expect(derivations.every((item) => item.derivation.premises.length > 0)).toBe(true);

    const induced = await execute({
      taskId: "i-1",
      reasoningType: "inductive",
      goalQuery: "What do Alice, Bob and Carol have in common?",
    });
    expect(induced.status).toBe("completed");
    expect(induced.result?.reasoningTrace?.subgraph.entities.map((entity) => entity.name)).toContain(
      "Parisian family members",
    );

    const abduced = await execute({
      taskId: "a-1",
      reasoningType: "abductive",
      goalQuery: "Where does Dave most likely live?",
      preferredCoTVariation: "selfConsistency",
    });
    expect(abduced.status).toBe("completed");
    expect(abduced.result?.reasoningTrace?.hypotheses.find((item) => item.selected)?.name).toBe(
      "Dave lives in Paris too",
    );
    expect(abduced.result?.reasoningTrace?.selfConsistency?.samples).toBe(3);

    await planRoundTrips(execute, "p");
  });

  it("serves the same as the reasoning_execute_task tool and ends sessions by method and by tool", async () => {
    const result = await server.client.callTool({
      name: "reasoning_execute_task",
      arguments: { taskId: "tool-1", ...deductive, preferredCoTVariation: "treeOfThoughts_basic" },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const response = executeTaskResponseSchema.parse(result.structuredContent);
    expect(response.status).toBe("completed");
    expect(response.result?.reasoningTrace?.thoughts.length).toBeGreaterThan(0);

    const ended = endSessionResponseSchema.parse(
      (await method("reasoning/endSession", { reasoningSessionId: response.reasoningSessionId })).result,
    );
    expect(ended).toMatchObject({ status: "ended", alreadyClosed: false });
    const again = await server.client.callTool({
      name: "reasoning_end_session",
      arguments: { sessionState: response.updatedSessionState },
    });
    expect(again.structuredContent).toMatchObject({ status: "ended", alreadyClosed: true });
    const refused = await protocolErrorOf(
      execute({ taskId: "tool-2", ...deductive, reasoningSessionId: response.reasoningSessionId }),
    );
    expect(refused.code).toBe(-32000);
    expect(refused.data.code).toBe("NOT_FOUND");
  });

  it("refuses a tampered sessionState and bad params with invalid params naming the field", async () => {
    const first = await execute({ taskId: "t-1", ...deductive });
    const token = first.updatedSessionState?.token as string;
    const tampered = await protocolErrorOf(
      execute({
        taskId: "t-2",
        ...deductive,
        sessionState: { token: `${token.slice(0, -2)}${token.endsWith("AA") ? "BB" : "AA"}` },
      }),
    );
    expect(tampered.code).toBe(-32602);
    expect(tampered.data.issues?.map((issue) => issue.field)).toEqual(["sessionState"]);
    const missing = await protocolErrorOf(execute({ taskId: "t-3", reasoningType: "deductive" }));
    expect(missing.code).toBe(-32602);
    expect(missing.data.issues?.map((issue) => issue.field)).toEqual(["goalQuery"]);
  });
});

describe("reasoning/executeTask over stdio with no key (host-executed)", () => {
  const directory = temporaryDirectory();
  let server: StdioServer;
  const { execute } = sender(() => server.client);

  beforeAll(async () => {
    server = await startStdioServer({ DATABASE_PATH: join(directory.path, "keyless.db") });
  });
  afterAll(async () => {
    await server?.close();
    directory.remove();
  });

  it("completes every reasoning type and both round trips through needs_completion rounds", async () => {
    const deduced = await execute({ taskId: "d-1", ...deductive });
    expect(deduced.status).toBe("completed");
    expect(deduced.rounds).toBeGreaterThanOrEqual(3);
    expect(
      new Set(
        deduced.result?.reasoningTrace?.derivations.map(
          (item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`,
        ),
      ),
    ).toEqual(new Set(scenarioDeducedTriples));
    for (const reasoningType of ["inductive", "abductive"]) {
      expect(
        (
          await execute({
            taskId: `${reasoningType}-1`,
            reasoningType,
            goalQuery: "What is common, and where does Dave live?",
          })
        ).status,
      ).toBe("completed");
    }
    await planRoundTrips(execute, "host");
  });
});

describe("session lifecycle on a real process: cap and idle expiry", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let server: StdioServer;
  const { execute } = sender(() => server.client);

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    server = await startStdioServer({
      DATABASE_PATH: join(directory.path, "lifecycle.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
      KNOWLEDGE_GRAPH_MAX_SESSIONS: "1",
      KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS: "3",
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory.remove();
  });

  it("refuses a session past the cap, then frees it when the first one idles out", async () => {
    const first = await execute({ taskId: "c-1", ...deductive, reasoningSessionId: "first" });
    expect(first.status).toBe("completed");
    const capped = await protocolErrorOf(execute({ taskId: "c-2", ...deductive, reasoningSessionId: "second" }));
    expect(capped.data.code).toBe("LIMIT_EXCEEDED");
    // Wait out the three-second idle timeout (an expiry check, not a timing assertion; three seconds so a
    // slow first call on a loaded machine cannot idle out before the cap is checked).
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const expired = await protocolErrorOf(execute({ taskId: "c-3", ...deductive, reasoningSessionId: "first" }));
    expect(expired.data.code).toBe("NOT_FOUND");
    expect(expired.message).toMatch(/expired/);
    expect((await execute({ taskId: "c-4", ...deductive, reasoningSessionId: "second" })).status).toBe("completed");
  });
});

describe("reasoning/executeTask over Streamable HTTP", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let http: HttpServerProcess;
  const clients: Client[] = [];

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    http = await startHttpServer(["--http", "--port", "0"], {
      DATABASE_PATH: join(directory.path, "http.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await http?.stop();
    await fake?.close();
    directory.remove();
  });

  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    it(`serves the method and the capability to a ${era} client`, async () => {
      const client = testClient(
        { name: "kg-http", version: "1.0.0" },
        era === "2026-07-28" ? { versionNegotiation: { mode: "auto" } } : undefined,
      );
      await client.connect(new StreamableHTTPClientTransport(http.url));
      clients.push(client);
      expect(client.getNegotiatedProtocolVersion()).toBe(era);
      expect(
        reasoningCapabilitySchema.safeParse(client.getServerCapabilities()?.experimental?.["reasoning"]).success,
      ).toBe(true);
      const response = executeTaskResponseSchema.parse(
        await client.request(
          { method: "reasoning/executeTask", params: { taskId: `http-${era}`, ...deductive } },
          anyResult,
        ),
      );
      expect(response.status).toBe("completed");
      expect(response.result?.reasoningTrace?.derivations).toHaveLength(scenarioDeducedTriples.length);
    });
  }
});

describe("knowledge-graph sessions over MCP: the signed state or the connection the session is bound to", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let first: StdioServer;
  let second: StdioServer;
  const a = sender(() => first.client);
  const b = sender(() => second.client);

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    // Two stdio processes on one database: two clients, each the caller of its own connection.
    const env = {
      DATABASE_PATH: join(directory.path, "bound.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
    };
    first = await startStdioServer(env);
    second = await startStdioServer(env);
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await fake?.close();
    directory.remove();
  });

  it("the creating connection continues and ends by id (method, tool and the model-free fast path); another needs the state; a forged one is refused", async () => {
    const created = await a.execute({ taskId: "m-1", ...deductive, reasoningSessionId: "mcp-bound" });
    expect(created.status).toBe("completed");
    expect((await a.execute({ taskId: "m-2", ...deductive, reasoningSessionId: "mcp-bound" })).status).toBe(
      "completed",
    );

    const refused = await protocolErrorOf(b.execute({ taskId: "m-3", ...deductive, reasoningSessionId: "mcp-bound" }));
    expect(refused.code).toBe(-32000);
    expect(refused.data).toMatchObject({ code: "CONFLICT", issues: [{ field: "sessionState" }] });
    const byTool = await second.client.callTool({
      name: "reasoning_execute_task",
      arguments: { taskId: "m-4", ...deductive, reasoningSessionId: "mcp-bound" },
    });
    expect(byTool.isError).toBe(true);
    expect(JSON.parse((byTool.content as Array<{ text: string }>)[0]?.text ?? "{}")).toMatchObject({
      code: "CONFLICT",
      issues: [{ field: "sessionState" }],
    });
    const notEnded = await second.client.callTool({
      name: "reasoning_end_session",
      arguments: { reasoningSessionId: "mcp-bound" },
    });
    expect(notEnded.isError).toBe(true);
    const forged = await protocolErrorOf(
      b.execute({
        taskId: "m-5",
        ...deductive,
        sessionState: `kg1.${Buffer.from(JSON.stringify({ s: "mcp-bound", r: 2 })).toString("base64url")}.AAAA`,
      }),
    );
    expect(forged.code).toBe(-32602);
    expect(forged.data.issues?.map((issue) => issue.field)).toEqual(["sessionState"]);

    // With the state, the other connection continues; the creator ends it by id through the tool (the stdio fast path).
    const latest = await a.execute({ taskId: "m-6", ...deductive, reasoningSessionId: "mcp-bound" });
    expect((await b.execute({ taskId: "m-7", ...deductive, sessionState: latest.updatedSessionState })).status).toBe(
      "completed",
    );
    const ended = await first.client.callTool({
      name: "reasoning_end_session",
      arguments: { reasoningSessionId: "mcp-bound" },
    });
    expect(ended.isError, JSON.stringify(ended.content)).toBeFalsy();
    expect(ended.structuredContent).toMatchObject({ status: "ended", alreadyClosed: false });
  });

  it("pages the graph in the session resource like the thoughts", async () => {
    const created = await a.execute({ taskId: "r-1", ...deductive, reasoningSessionId: "mcp-paged" });
    const read = async (query: string) => {
      const resource = await first.client.readResource({ uri: `deliberate://sessions/mcp-paged${query}` });
      return JSON.parse((resource.contents[0] as { text: string }).text);
    };
    const whole = await read("?limit=1000");
    expect(whole.knowledgeGraph.relations.length).toBeGreaterThan(4);
    const page = await read("?limit=2&offset=1");
    expect(page.knowledgeGraph.relations).toEqual(whole.knowledgeGraph.relations.slice(1, 3));
    expect(page.knowledgeGraph.entities).toHaveLength(2);
    expect(page.page.totals["knowledgeGraph.relations"]).toBe(whole.knowledgeGraph.relations.length);
    expect(created.status).toBe("completed");
  });
});

describe("knowledge-graph sessions over Streamable HTTP without a token: anonymous calls need the state", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let http: HttpServerProcess;
  const clients: Client[] = [];

  beforeAll(async () => {
    fake = await createFakeModelServer({
      respond: (request) => ({ object: answerFor(request.schemaName ?? "", request.prompt) }),
    });
    http = await startHttpServer(["--http", "--port", "0"], {
      DATABASE_PATH: join(directory.path, "anonymous.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await http?.stop();
    await fake?.close();
    directory.remove();
  });

  it("refuses continuing by id alone, and continues with the signed state", async () => {
    const client = testClient({ name: "kg-anonymous", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    clients.push(client);
    const { execute } = sender(() => client);
    const created = await execute({ taskId: "h-1", ...deductive, reasoningSessionId: "http-anonymous" });
    expect(created.status).toBe("completed");
    const refused = await protocolErrorOf(
      execute({ taskId: "h-2", ...deductive, reasoningSessionId: "http-anonymous" }),
    );
    expect(refused.data).toMatchObject({ code: "CONFLICT", issues: [{ field: "sessionState" }] });
    expect((await execute({ taskId: "h-3", ...deductive, sessionState: created.updatedSessionState })).status).toBe(
      "completed",
    );
  });
});

describe("knowledge-graph over MCP when the model fails", () => {
  const directory = temporaryDirectory();
  let fake: FakeModelServer;
  let server: StdioServer;
  const { execute } = sender(() => server.client);

  beforeAll(async () => {
    fake = await createFakeModelServer({ respond: { status: 503, message: "the model is overloaded" } });
    server = await startStdioServer({
      DATABASE_PATH: join(directory.path, "failing.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
      MAX_RETRIES: "0",
    });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory.remove();
  });

  it("returns status failed with a typed, retryable error from the method and the tool, not a JSON-RPC error", async () => {
    const failed = await execute({ taskId: "f-1", ...deductive });
    expect(failed).toMatchObject({
      status: "failed",
      reasoningSessionId: null,
      updatedSessionState: null,
      error: { reason: "PROVIDER_UNAVAILABLE", code: 5023, retryable: true },
    });
    const byTool = await server.client.callTool({
      name: "reasoning_execute_task",
      arguments: { taskId: "f-2", ...deductive },
    });
    expect(byTool.isError, JSON.stringify(byTool.content)).toBeFalsy();
    expect(executeTaskResponseSchema.parse(byTool.structuredContent)).toMatchObject({
      status: "failed",
      error: { reason: "PROVIDER_UNAVAILABLE" },
    });
    // Bad input is still an error of the call.
    expect((await protocolErrorOf(execute({ taskId: "f-3", reasoningType: "deductive", goalQuery: "" }))).code).toBe(
      -32602,
    );
  });
});

import { join } from "node:path";
import {
  scenarioDomainKnowledge as familyKnowledge,
  scenarioWeatherTool as weatherTool,
} from "@deliberate/knowledge-graph/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CoordinatorEvent,
  type CoordinatorOutcome,
  createDeliberateClient,
  createHttpTransport,
  createReasoningCoordinator,
  type DeliberateClient,
  fallbackMatrix,
  type ReasoningCoordinatorOptions,
  type Transport,
} from "../src/index.ts";
import { connectMcp } from "../src/mcp.ts";
import { knowledgeGraphHost } from "./support/knowledge-graph-host.ts";
import {
  mcpServerMain,
  type ServiceProcess,
  serverEnvironment,
  startApi,
  startMcpHttp,
  temporaryDirectory,
} from "./support/services.ts";

// Every status path of the coordinator end to end, against the built deliberate-api (REST) and
// deliberate-mcp (stdio and Streamable HTTP) serving the knowledge-graph module with no model key:
// every reasoning call is host-executed, its prompts answered by the host's complete().

const directory = temporaryDirectory();

interface Surface {
  transport: Transport;
  client: DeliberateClient;
  /** Stops the server answering (SIGSTOP) and lets it go on (SIGCONT). */
  pause(): void;
  resume(): void;
  /** Kills the server: its connection is gone. */
  kill(): Promise<void>;
  close(): Promise<void>;
}

// With tokens, each surface tells its caller apart: the sessions a client creates are bound to it (the
// `ended` check below ends them by id alone); stdio's caller is its connection.
const token = "coordinator-test-token-0123456789";

async function restSurface(): Promise<Surface> {
  const api = await startApi(join(directory.path, `api-${Date.now()}.db`), { REASONING_API_TOKEN: token });
  const transport = createHttpTransport({ baseUrl: api.url, env: {}, retries: 0, token });
  return surfaceOf(transport, api);
}

async function mcpHttpSurface(): Promise<Surface> {
  const server = await startMcpHttp(join(directory.path, `mcp-http-${Date.now()}.db`), { MCP_HTTP_TOKEN: token });
  const transport = await connectMcp({ url: server.url, token });
  return surfaceOf(transport, server);
}

async function mcpStdioSurface(): Promise<Surface> {
  const transport = await connectMcp({
    command: process.execPath,
    args: [mcpServerMain],
    env: await serverEnvironment(join(directory.path, `mcp-stdio-${Date.now()}.db`)),
    stderr: "ignore",
  });
  const pid = (transport.client.transport as unknown as { pid: number | null }).pid;
  if (!pid) throw new Error("no server pid");
  return {
    transport,
    client: createDeliberateClient({ transport, complete: knowledgeGraphHost() }),
    pause: () => process.kill(pid, "SIGSTOP"),
    resume: () => process.kill(pid, "SIGCONT"),
    kill: async () => {
      process.kill(pid, "SIGCONT");
      process.kill(pid, "SIGKILL");
    },
    close: async () => {
      await transport.close().catch(() => {});
    },
  };
}

function surfaceOf(transport: Transport, service: ServiceProcess): Surface {
  return {
    transport,
    client: createDeliberateClient({ transport, complete: knowledgeGraphHost() }),
    pause: () => service.pause(),
    resume: () => service.resume(),
    kill: () => service.stop(),
    close: async () => {
      await transport.close().catch(() => {});
      await service.stop();
    },
  };
}

afterAll(() => directory.remove());

const deductiveQuery =
  "Deduce the consequences of this: given that Alice is Bob's parent, Bob is Carol's and Carol is Dave's, is Alice an ancestor of Dave?";
const picnicQuery = "Plan a decision: should the family picnic in Paris go ahead on Saturday?";
const standard = { text: "Standard answer.", confidence: 0.9 };

function coordinatorOn(surface: Surface, overrides: Partial<ReasoningCoordinatorOptions> = {}) {
  const events: CoordinatorEvent[] = [];
  const coordinator = createReasoningCoordinator({
    client: surface.client,
    standard: async () => standard,
    onEvent: (event) => events.push(event),
    availableTools: [weatherTool],
    executeTool: (request) => ({ city: request.toolArguments["city"], forecast: "rain", probability: 0.8 }),
    ...overrides,
  });
  return { coordinator, events };
}

function reasoned(outcome: CoordinatorOutcome) {
  if (outcome.kind !== "answer" || outcome.source !== "reasoning")
    throw new Error(`expected a reasoning answer, got ${JSON.stringify(outcome).slice(0, 400)}`);
  return outcome;
}

function standardWith(outcome: CoordinatorOutcome) {
  if (outcome.kind !== "answer" || outcome.source !== "standard")
    throw new Error(`expected the standard answer, got ${JSON.stringify(outcome).slice(0, 400)}`);
  return outcome;
}

/** Whether the server has ended the session (ending it again says it was already closed). */
async function ended(client: DeliberateClient, reasoningSessionId: string): Promise<boolean> {
  return (await client.reasoning.endSession({ reasoningSessionId })).alreadyClosed;
}

describe.each([
  ["rest", restSurface],
  ["mcp-stdio", mcpStdioSurface],
  ["mcp-http", mcpHttpSurface],
] as const)("the coordinator over %s", (name, open) => {
  let surface: Surface;
  beforeAll(async () => {
    surface = await open();
  });
  afterAll(async () => {
    await surface?.close();
  });

  it("reads the reasoning capability, keyed by server and protocol version, with the server's TTL hint", async () => {
    const { coordinator } = coordinatorOn(surface);
    const cached = await coordinator.capabilities();
    expect(cached.capability?.supportedReasoningTypes).toEqual([
      "inductive",
      "deductive",
      "abductive",
      "planAndExecuteCoT",
    ]);
    expect(cached.capability?.methods).toContain("reasoning/executeTask");
    expect(cached.protocolVersion).toBe(surface.transport.protocolVersion());
    // REST sends Cache-Control: max-age=300; MCP's initialize has no lifetime, so the default applies.
    expect(cached).toMatchObject(name === "rest" ? { ttlSource: "server" } : { ttlSource: "default" });
    if (name === "rest") expect(cached.expiresAt - cached.fetchedAt).toBe(300_000);
  });

  it("completed: a deductive answer with its work shown, the session ended", async () => {
    const { coordinator, events } = coordinatorOn(surface);
    const outcome = reasoned(await coordinator.handle({ query: deductiveQuery, domainKnowledge: familyKnowledge }));
    expect(outcome).toMatchObject({
      answer: "Yes: Alice is an ancestor of Dave.",
      band: "high",
      decision: { route: "direct", selection: { type: "deductive", rule: "keyword" } },
    });
    expect(outcome.text).toBe(outcome.answer);
    expect(outcome.confidence).toBeGreaterThan(0.8);
    expect(outcome.summary.approach).toMatch(/^Deductive analysis/);
    expect(outcome.summary.keyInformation).toContain("Supported by: Alice ancestor of Dave");
    expect(outcome.summary.mainSteps.join("\n")).toMatch(/\S/);
    expect(events.filter((event) => event.type !== "phase").map((event) => event.type)).toEqual([
      "decided",
      "invoked",
      "progress",
      "completed",
    ]);
    expect(await ended(surface.client, outcome.reasoningSessionId)).toBe(true);
  });

  it("completed: refines once with the host's critique, continuing the same session, and answers the original question", async () => {
    const critiques: Array<[number, string]> = [];
    const { coordinator, events } = coordinatorOn(surface, {
      critique: ({ cycle, answer }) => {
        critiques.push([cycle, answer]);
        return cycle === 0 ? { followUp: "Is Bob an ancestor of Dave as well?" } : { sufficient: true };
      },
    });
    const outcome = reasoned(await coordinator.handle({ query: deductiveQuery, domainKnowledge: familyKnowledge }));
    // The critique judges the answer to the question asked, each time.
    expect(critiques).toEqual([
      [0, "Yes: Alice is an ancestor of Dave."],
      [1, "Yes: Alice is an ancestor of Dave."],
    ]);
    expect(outcome.refinementCycles).toBe(1);
    expect(outcome.summary.refinements).toEqual(["Is Bob an ancestor of Dave as well?"]);
    // The follow-up's answer is a finding; the answer shown is the synthesis, to the original question.
    expect(outcome.followUps).toMatchObject([
      { question: "Is Bob an ancestor of Dave as well?", answer: "Yes: Bob is an ancestor of Dave." },
    ]);
    expect(outcome.answer).toBe("Yes: Alice is an ancestor of Dave.");
    expect(events.filter((event) => event.type === "progress" && event.stage === "refinement")).toHaveLength(1);
    expect(events.filter((event) => event.type === "progress" && event.stage === "synthesis")).toHaveLength(1);
    expect(await ended(surface.client, outcome.reasoningSessionId)).toBe(true);
  });

  it("pending_tool_call then pending_user_input: the host runs the tool, the user is asked, the answer resumes the session", async () => {
    const ran: unknown[] = [];
    const { coordinator, events } = coordinatorOn(surface, {
      executeTool: (request) => {
        ran.push([request.toolName, request.toolArguments]);
        return { forecast: "rain", probability: 0.8 };
      },
    });
    const question = await coordinator.handle({ query: picnicQuery, intent: "strategic_planning" });
    expect(question).toMatchObject({
      kind: "needs_user_input",
      question: "Does the group have umbrellas?",
      decision: { selection: { type: "planAndExecuteCoT" } },
    });
    expect(ran).toEqual([["weather", { city: "Paris" }]]);
    if (question.kind !== "needs_user_input") return;
    // Waiting for the user is not the end: the session stays open on the server.
    expect(events.some((event) => event.type === "progress" && event.stage === "end_session")).toBe(false);
    const outcome = reasoned(
      await coordinator.resume({
        reasoningSessionId: question.reasoningSessionId,
        userInput: "Yes, everyone has one.",
      }),
    );
    expect(outcome.answer).toMatch(/\S/);
    expect(outcome.summary.keyInformation.join("\n")).toMatch(/weather|umbrella/i);
    expect(await ended(surface.client, question.reasoningSessionId)).toBe(true);
  });

  it("failed: the standard approach, with the matrix's message", async () => {
    const { coordinator } = coordinatorOn(surface);
    const outcome = standardWith(await coordinator.handle({ query: `${deductiveQuery} Nothing to see.` }));
    expect(outcome).toMatchObject({
      text: "Standard answer.",
      failure: { kind: "failed", code: "EXTRACTION_EMPTY" },
      notice: fallbackMatrix.failed.userMessage,
    });
  });

  it("max_iterations_reached: no partial answer, so the standard approach", async () => {
    const { coordinator } = coordinatorOn(surface, { maxSteps: 2 });
    const outcome = standardWith(
      await coordinator.handle({
        query: "Plan a budget for the family trip to Paris.",
        intent: "strategic_planning",
        domainKnowledge: familyKnowledge,
      }),
    );
    expect(outcome).toMatchObject({
      failure: { kind: "max_iterations" },
      notice: fallbackMatrix.max_iterations.userMessage,
    });
  });

  it("low confidence: the answer, hedged, with the low-confidence notice", async () => {
    const { coordinator } = coordinatorOn(surface);
    const outcome = reasoned(
      await coordinator.handle({ query: `${deductiveQuery} I am unsure.`, domainKnowledge: familyKnowledge }),
    );
    expect(outcome.failure?.kind).toBe("low_confidence");
    expect(["low", "insufficient"]).toContain(outcome.band);
    expect(outcome.text).not.toBe(outcome.answer);
    expect(outcome.notice).toBe(fallbackMatrix.low_confidence.userMessage);
  });

  it("malformed answers: the standard approach", async () => {
    // A correct server never sends one: corrupt its real answers on the way in.
    // (Host-executed, the final answer arrives from reasoning_submit: corrupt every executeTask answer.)
    const corrupt = (result: Record<string, unknown>) =>
      "taskId" in result && result["status"] !== "needs_completion" ? { ...result, status: "finished" } : result;
    const corrupting: Transport = {
      ...surface.transport,
      callMethod: async (method, params, options) =>
        corrupt((await surface.transport.callMethod(method, params, options)) as Record<string, unknown>),
      callTool: async (tool, input, options) =>
        corrupt((await surface.transport.callTool(tool, input, options)) as Record<string, unknown>),
    };
    const client = createDeliberateClient({ transport: corrupting, complete: knowledgeGraphHost() });
    const { coordinator } = coordinatorOn(surface, { client });
    const outcome = standardWith(await coordinator.handle({ query: deductiveQuery, domainKnowledge: familyKnowledge }));
    expect(outcome).toMatchObject({
      failure: { kind: "malformed", code: "MALFORMED_RESPONSE" },
      notice: fallbackMatrix.malformed.userMessage,
    });
  });

  it("timeouts: a server that stops answering mid-task gives the standard approach, by the liveness bound (default settings)", async () => {
    const { coordinator } = coordinatorOn(surface, {
      // Gates pass first (the capability is cached), then the server stops answering.
      onEvent: (event) => {
        if (event.type === "invoked") surface.pause();
      },
    });
    await coordinator.capabilities();
    try {
      const outcome = standardWith(
        await coordinator.handle({ query: deductiveQuery, domainKnowledge: familyKnowledge }),
      );
      // Given up by the liveness watch (its bound as the coordinator reports it), not the 60 s request timeout.
      const livenessBound = coordinator.bounds.livenessIntervalMs + coordinator.bounds.healthCheckMs;
      expect(outcome).toMatchObject({
        failure: { kind: "timeout", phase: "liveness", deadlineMs: livenessBound },
        notice: fallbackMatrix.timeout.userMessage,
      });
      expect(livenessBound).toBeLessThanOrEqual(10_000);
    } finally {
      surface.resume();
    }
  });

  it("a lost connection: the standard approach (the server dies mid-task)", async () => {
    const { coordinator } = coordinatorOn(surface, {
      executeTool: async () => {
        await surface.kill();
        return { forecast: "rain" };
      },
    });
    const outcome = standardWith(await coordinator.handle({ query: picnicQuery, intent: "strategic_planning" }));
    expect(outcome).toMatchObject({ failure: { kind: "connection" }, notice: fallbackMatrix.connection.userMessage });
  });
});

import type { ExecuteTaskResponse } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { capability, responses, trace } from "../../test/support/responses.ts";
import { createDeliberateClient } from "../client.ts";
import { DeliberateClientError } from "../errors.ts";
import type { ServerDescription, Transport, TransportCallOptions } from "../transport.ts";
import { createReasoningCoordinator, type ReasoningCoordinatorOptions } from "./coordinator.ts";
import type { CoordinatorEvent } from "./events.ts";
import { fallbackMatrix } from "./fallback.ts";

// The coordinator's lifecycle over a scripted server (in memory): every status, the refinement
// loop, tools, the user, the fallback rows, endSession. The same paths run end to end against
// the real services in test/coordinator.e2e.test.ts.

type Params = Record<string, unknown>;
type Reply = ExecuteTaskResponse | Error | "hang" | unknown;

function scriptedServer(
  script: (params: Params, call: number) => Reply,
  advertised: Record<string, unknown> = { reasoning: capability() },
) {
  const executed: Params[] = [];
  const ended: Params[] = [];
  const via: string[] = [];
  let pings = 0;
  let describes = 0;
  let healthy = true;
  const answer = (params: Params, options: TransportCallOptions): Promise<unknown> => {
    executed.push(params);
    const reply = script(params, executed.length);
    if (reply instanceof Error) return Promise.reject(reply);
    if (reply === "hang") {
      return new Promise((_resolve, reject) =>
        options.signal?.addEventListener("abort", () =>
          reject(new DeliberateClientError({ code: "ABORTED", message: "aborted" })),
        ),
      );
    }
    return Promise.resolve(reply);
  };
  const transport: Transport = {
    surface: "mcp",
    endpoint: "memory://reasoning",
    async callTool(name, input, options = {}) {
      via.push(`tool:${name}`);
      if (name === "reasoning_execute_task") return answer(input as Params, options);
      ended.push(input as Params);
      return {
        reasoningSessionId: (input as Params)["reasoningSessionId"],
        status: "ended",
        alreadyClosed: false,
        endedAt: "2026-11-22T12:00:00.000Z",
        entities: 1,
        relations: 1,
      };
    },
    async callMethod(method, params, options = {}) {
      via.push(`method:${method}`);
      if (method === "reasoning/executeTask") return answer(params, options);
      ended.push(params);
      return {
        reasoningSessionId: params["reasoningSessionId"],
        status: "ended",
        alreadyClosed: false,
        endedAt: "2026-11-22T12:00:00.000Z",
        entities: 1,
        relations: 1,
      };
    },
    async describe(): Promise<ServerDescription> {
      describes += 1;
      return {
        surface: "mcp",
        endpoint: "memory://reasoning",
        protocolVersion: "2025-11-25",
        server: { name: "scripted", version: "1" },
        capabilities: advertised,
        ttlMs: null,
      };
    },
    async ping() {
      pings += 1;
      if (!healthy) throw new DeliberateClientError({ code: "CONNECTION_FAILED", message: "down" });
    },
    protocolVersion: () => "2025-11-25",
    async close() {},
  };
  return {
    client: createDeliberateClient({ transport }),
    executed,
    ended,
    via,
    pings: () => pings,
    describes: () => describes,
    setHealthy: (value: boolean) => {
      healthy = value;
    },
  };
}

const standardAnswer = { text: "Standard answer.", confidence: 0.9 };
const strongQuery =
  "Deduce the consequences of this: given that Alice is Bob's parent and Bob is Carol's parent, what must be true of Alice and Carol?";

function coordinatorFor(
  server: ReturnType<typeof scriptedServer>,
  overrides: Partial<ReasoningCoordinatorOptions> = {},
) {
  const events: CoordinatorEvent[] = [];
  const standardCalls: string[] = [];
  let ids = 0;
  const coordinator = createReasoningCoordinator({
    client: server.client,
    standard: async ({ query }) => {
      standardCalls.push(query);
      return standardAnswer;
    },
    onEvent: (event) => events.push(event),
    newId: () => `task-${++ids}`,
    ...overrides,
  });
  return { coordinator, events, standardCalls };
}

describe("gates and routes", () => {
  it("handles small talk with the standard approach, asking the server nothing", async () => {
    const server = scriptedServer(() => responses.completed("x", "no"));
    const { coordinator, standardCalls } = coordinatorFor(server);
    const outcome = await coordinator.handle({ query: "Thanks!" });
    expect(outcome).toMatchObject({ kind: "answer", source: "standard", text: "Standard answer." });
    expect(outcome.kind === "answer" && outcome.source === "standard" && outcome.failure).toBeFalsy();
    expect(standardCalls).toEqual(["Thanks!"]);
    expect([server.pings(), server.describes(), server.executed.length]).toEqual([0, 0, 0]);
  });

  it("respects the enabled flag (gate 1)", async () => {
    const server = scriptedServer(() => responses.completed("x", "no"));
    const { coordinator } = coordinatorFor(server, { enabled: false });
    const outcome = await coordinator.handle({ query: strongQuery });
    expect(outcome).toMatchObject({
      kind: "answer",
      source: "standard",
      decision: { gate: { passed: false, gate: "disabled" } },
    });
    expect(server.executed).toEqual([]);
  });

  it("checks the server's health (gate 2), and caches the result", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Yes."));
    server.setHealthy(false);
    const { coordinator } = coordinatorFor(server, { healthTtlMs: 60_000 });
    const first = await coordinator.handle({ query: strongQuery });
    expect(first).toMatchObject({ source: "standard", decision: { gate: { passed: false, gate: "unhealthy" } } });
    server.setHealthy(true);
    await coordinator.handle({ query: strongQuery });
    expect(server.pings()).toBe(1);
    expect(server.executed).toEqual([]);
  });

  it("needs the reasoning capability and a supported type (capability gate)", async () => {
    const none = scriptedServer(() => responses.completed("x", "no"), {});
    expect(await coordinatorFor(none).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      decision: { gate: { gate: "capability" } },
    });
    const empty = scriptedServer(() => responses.completed("x", "no"), {
      reasoning: capability({ supportedReasoningTypes: [] }),
    });
    expect(await coordinatorFor(empty).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      decision: { gate: { gate: "capability" }, selection: { rule: "none" } },
    });
    const garbled = scriptedServer(() => responses.completed("x", "no"), { reasoning: { version: 1 } });
    expect(await coordinatorFor(garbled).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      decision: { gate: { gate: "capability" } },
    });
  });

  it("tries the standard approach first in the tiered band, escalating only a weak answer", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Reasoned answer.", 0.9));
    const query = "The build broke yesterday. What could be the cause?";
    const confident = coordinatorFor(server);
    expect(confident.coordinator.policy.thresholds.escalate).toBe(0);
    expect(await confident.coordinator.handle({ query, intent: "chit_chat" })).toMatchObject({
      source: "standard",
      decision: { route: "tiered" },
    });
    expect(server.executed).toEqual([]);
    const refusing = coordinatorFor(server, { standard: async () => ({ text: "I cannot answer that." }) });
    const escalated = await refusing.coordinator.handle({ query });
    expect(escalated).toMatchObject({
      kind: "answer",
      source: "reasoning",
      answer: "Reasoned answer.",
      decision: { route: "tiered" },
    });
    expect(server.executed[0]).toMatchObject({ reasoningType: "abductive", goalQuery: query });
  });

  it("reads the capability once while it is fresh", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Yes."));
    const { coordinator } = coordinatorFor(server);
    await coordinator.handle({ query: strongQuery });
    await coordinator.handle({ query: strongQuery });
    expect(server.describes()).toBe(1);
    await coordinator.capabilities({ refresh: true });
    expect(server.describes()).toBe(2);
  });
});

describe("status handling", () => {
  it("completed: presents the answer with its work, ends the session, reports events", async () => {
    const server = scriptedServer((params) =>
      responses.completed(params["taskId"] as string, "Alice is Dave's ancestor.", 0.86, trace()),
    );
    const { coordinator, events, standardCalls } = coordinatorFor(server, { domainKnowledge: undefined } as never);
    const outcome = await coordinator.handle({
      query: strongQuery,
      history: "User: hi",
      domainKnowledge: "Alice is Bob's parent.",
    });
    if (outcome.kind !== "answer" || outcome.source !== "reasoning") throw new Error(`unexpected ${outcome.kind}`);
    // The server's session id is adopted (here it names the session "s-1").
    expect(outcome).toMatchObject({
      text: "Alice is Dave's ancestor.",
      band: "high",
      confidence: 0.86,
      reasoningSessionId: "s-1",
      refinementCycles: 0,
    });
    expect(outcome.summary.keyInformation).toEqual(["Supported by: Alice ancestor of Dave"]);
    expect(standardCalls).toEqual([]);
    expect(server.executed[0]).toMatchObject({
      taskId: "task-1",
      reasoningSessionId: "task-1",
      reasoningType: "deductive",
      goalQuery: strongQuery,
      contextData: { historicalConversation: "User: hi", domainKnowledge: "Alice is Bob's parent." },
      outputRequirements: { format: "finalAnswerWithTrace" },
    });
    expect(server.ended).toEqual([{ reasoningSessionId: "s-1", sessionState: { token: "state-1" } }]);
    expect(server.via).toEqual(["method:reasoning/executeTask", "method:reasoning/endSession"]);
    expect(events.filter((event) => event.type !== "phase").map((event) => event.type)).toEqual([
      "decided",
      "invoked",
      "progress",
      "completed",
    ]);
    expect(events.at(-1)).toMatchObject({ type: "completed", outcome: "reasoning", band: "high", failure: null });
    // Every phase reports the deadline it had: the documented defaults.
    const phases = events.flatMap((event) =>
      event.type === "phase" && event.status === "started" ? [[event.phase, event.deadlineMs]] : [],
    );
    expect(phases).toEqual([
      ["health_check", 2_000],
      ["capabilities", 2_000],
      ["request", 60_000],
      ["end_session", 2_000],
    ]);
    expect(coordinator.bounds.unresponsiveFallbackMs).toBe(8_000);
  });

  it("completed: refines with the host's critique, keeps the original question, and synthesises the final answer to it", async () => {
    const server = scriptedServer((params, call) => {
      const goal = params["goalQuery"] as string;
      const answer =
        goal === strongQuery
          ? call === 1
            ? "Answer to the question."
            : "Synthesised answer to the question."
          : `About ${goal}`;
      return {
        ...responses.completed(params["taskId"] as string, answer, 0.8),
        updatedSessionState: { token: `state-${call}` },
      };
    });
    const critiques: Array<{ cycle: number; answer: string; findings: number }> = [];
    const { coordinator, events } = coordinatorFor(server, {
      critique: ({ cycle: round, answer, findings }) => {
        critiques.push({ cycle: round, answer, findings: findings.length });
        return { followUp: `Follow-up ${round + 1}?` };
      },
      maxRefinementCycles: 2,
    });
    const outcome = await coordinator.handle({ query: strongQuery, history: "User: earlier" });
    // The critique always judges the answer to the original question, with what the follow-ups found.
    expect(critiques).toEqual([
      { cycle: 0, answer: "Answer to the question.", findings: 0 },
      { cycle: 1, answer: "Answer to the question.", findings: 1 },
    ]);
    expect(server.executed.map((call) => call["goalQuery"])).toEqual([
      strongQuery,
      "Follow-up 1?",
      "Follow-up 2?",
      strongQuery,
    ]);
    expect(server.executed[1]).toMatchObject({
      taskId: "task-2",
      reasoningSessionId: "s-1",
      sessionState: { token: "state-1" },
      contextData: { historicalConversation: `User: earlier\nUser: ${strongQuery}` },
    });
    const summary = (call: number) =>
      (server.executed[call]?.["contextData"] as { hostProvidedPriorReasoningSummary?: string } | undefined)
        ?.hostProvidedPriorReasoningSummary ?? "";
    expect(summary(1)).toContain(`Original question (the one to answer): ${strongQuery}`);
    expect(summary(1)).toContain("Answer so far: Answer to the question.");
    expect(summary(2)).toContain("- Follow-up 1? -> About Follow-up 1?");
    // The closing synthesis: the original question, with every finding, in the same session.
    expect(server.executed[3]).toMatchObject({ sessionState: { token: "state-3" } });
    expect(summary(3)).toContain("- Follow-up 2? -> About Follow-up 2?");
    expect(summary(3)).toContain("Answer the original question");
    expect(outcome).toMatchObject({
      source: "reasoning",
      answer: "Synthesised answer to the question.",
      refinementCycles: 2,
      followUps: [
        { question: "Follow-up 1?", answer: "About Follow-up 1?", confidence: 0.8 },
        { question: "Follow-up 2?", answer: "About Follow-up 2?", confidence: 0.8 },
      ],
    });
    expect(outcome.kind === "answer" && outcome.source === "reasoning" && outcome.summary.refinements).toEqual([
      "Follow-up 1?",
      "Follow-up 2?",
    ]);
    expect(outcome.kind === "answer" && outcome.source === "reasoning" && outcome.summary.keyInformation).toContain(
      'Follow-up "Follow-up 1?": About Follow-up 1?',
    );
    expect(events.filter((event) => event.type === "progress" && event.stage === "refinement")).toHaveLength(2);
    expect(events.filter((event) => event.type === "progress" && event.stage === "synthesis")).toHaveLength(1);
    expect(server.ended).toHaveLength(1);
  });

  it("completed: a failed synthesis keeps the answer to the original question, never a follow-up's", async () => {
    const server = scriptedServer((params, call) => {
      if (call === 3) return new DeliberateClientError({ code: "CONNECTION_FAILED", message: "gone" });
      return responses.completed(
        params["taskId"] as string,
        call === 1 ? "Answer to the question." : "Answer to the follow-up.",
        0.9,
      );
    });
    const outcome = await coordinatorFor(server, {
      critique: ({ cycle }) => (cycle === 0 ? { followUp: "More?" } : { sufficient: true }),
    }).coordinator.handle({ query: strongQuery });
    expect(outcome).toMatchObject({
      source: "reasoning",
      answer: "Answer to the question.",
      refinementFailure: { kind: "connection" },
      followUps: [{ question: "More?", answer: "Answer to the follow-up." }],
    });
  });

  it("completed: stops refining when the critique is satisfied; a failing follow-up keeps the answer in hand", async () => {
    const satisfied = scriptedServer((params) => responses.completed(params["taskId"] as string, "Fine answer."));
    const stop = coordinatorFor(satisfied, { critique: () => ({ sufficient: true }) });
    expect(await stop.coordinator.handle({ query: strongQuery })).toMatchObject({
      answer: "Fine answer.",
      refinementCycles: 0,
    });
    expect(satisfied.executed).toHaveLength(1);

    const flaky = scriptedServer((params, call) =>
      call === 1
        ? responses.completed(params["taskId"] as string, "First answer.")
        : new DeliberateClientError({ code: "CONNECTION_FAILED", message: "gone" }),
    );
    const kept = await coordinatorFor(flaky, { critique: () => ({ followUp: "More?" }) }).coordinator.handle({
      query: strongQuery,
    });
    expect(kept).toMatchObject({
      source: "reasoning",
      answer: "First answer.",
      refinementFailure: { kind: "connection" },
    });
    expect(flaky.ended).toHaveLength(1);
  });

  it("pending_tool_call: runs the host's tool and continues; failures go back as failed results", async () => {
    const server = scriptedServer((params, call) => {
      if (call === 1) return responses.toolCall(params["taskId"] as string, "weather", { city: "Paris" }, "call-1");
      if (call === 2) return responses.toolCall(params["taskId"] as string, "weather", { city: "Lyon" }, "call-2");
      if (call === 3) return responses.toolCall(params["taskId"] as string, "shell", { command: "rm" }, "call-3");
      return responses.completed(params["taskId"] as string, "Go, with umbrellas.");
    });
    const ran: unknown[] = [];
    const { coordinator, events } = coordinatorFor(server, {
      availableTools: [
        {
          name: "weather",
          description: "Weather of a city",
          inputSchema: { type: "object", properties: { city: { type: "string" } } },
        },
      ],
      executeTool: (request) => {
        ran.push(request.toolArguments);
        if (request.toolArguments["city"] === "Lyon") throw new Error("weather service down");
        return { forecast: "rain" };
      },
    });
    const outcome = await coordinator.handle({ query: strongQuery });
    expect(outcome).toMatchObject({ source: "reasoning", answer: "Go, with umbrellas." });
    expect(ran).toEqual([{ city: "Paris" }, { city: "Lyon" }]);
    expect(server.executed[0]).toMatchObject({ contextData: { availableTools: [{ name: "weather" }] } });
    expect(server.executed[1]).toMatchObject({
      toolResults: [{ toolCallId: "call-1", result: { forecast: "rain" } }],
      sessionState: { token: "state-1" },
    });
    expect(server.executed[2]).toMatchObject({
      toolResults: [{ toolCallId: "call-2", result: "weather service down", isError: true }],
    });
    expect(server.executed[3]).toMatchObject({
      toolResults: [{ toolCallId: "call-3", isError: true, result: expect.stringContaining("was not offered") }],
    });
    expect(events.filter((event) => event.type === "progress" && event.stage === "tool_call")).toHaveLength(3);
  });

  it("pending_tool_call: with no executor, or past the tool-call limit, falls back", async () => {
    const asking = scriptedServer((params) => responses.toolCall(params["taskId"] as string, "weather", {}));
    expect(await coordinatorFor(asking).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      failure: { kind: "failed" },
      notice: fallbackMatrix.failed.userMessage,
    });
    const endless = scriptedServer((params) => responses.toolCall(params["taskId"] as string, "weather", {}));
    const limited = coordinatorFor(endless, {
      availableTools: [{ name: "weather" }],
      executeTool: () => "sunny",
      maxToolCalls: 2,
    });
    expect(await limited.coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      failure: { kind: "max_iterations" },
    });
    expect(endless.executed).toHaveLength(3);
    expect(endless.ended).toHaveLength(1);
  });

  it("pending_user_input: returns a resumable question, keeps the session open, and resumes with the answer", async () => {
    const server = scriptedServer((params, call) =>
      call === 1
        ? responses.userInput(params["taskId"] as string, "Do they have umbrellas?")
        : responses.completed(params["taskId"] as string, "Go."),
    );
    const { coordinator } = coordinatorFor(server);
    const question = await coordinator.handle({ query: strongQuery });
    expect(question).toMatchObject({
      kind: "needs_user_input",
      question: "Do they have umbrellas?",
      text: "To help me reason more effectively about this, could you please tell me: Do they have umbrellas?",
      reasoningSessionId: "s-1",
    });
    expect(server.ended).toEqual([]);
    const answered = await coordinator.resume({ reasoningSessionId: "s-1", userInput: "Yes." });
    expect(answered).toMatchObject({ source: "reasoning", answer: "Go." });
    expect(server.executed[1]).toMatchObject({
      reasoningSessionId: "s-1",
      userInput: "Yes.",
      sessionState: { token: "state-1" },
      goalQuery: strongQuery,
    });
    expect(server.ended).toHaveLength(1);
    const again = await coordinator
      .resume({ reasoningSessionId: "s-1", userInput: "Yes." })
      .catch((error: unknown) => error);
    expect(again).toMatchObject({ code: "NOT_FOUND" });
  });

  it("pending_user_input: abandoning ends the session", async () => {
    const server = scriptedServer((params) => responses.userInput(params["taskId"] as string, "Which city?"));
    const { coordinator } = coordinatorFor(server);
    const question = await coordinator.handle({ query: strongQuery });
    expect(question.kind).toBe("needs_user_input");
    await coordinator.abandon("s-1");
    // With the session's signed state: the id alone ends only a session bound to this caller.
    expect(server.ended).toEqual([{ reasoningSessionId: "s-1", sessionState: { token: "state-1" } }]);
  });

  it("failed: the standard approach with the user-facing message, and endSession attempted", async () => {
    const server = scriptedServer((params) => responses.failed(params["taskId"] as string));
    const outcome = await coordinatorFor(server).coordinator.handle({ query: strongQuery });
    expect(outcome).toMatchObject({
      source: "standard",
      text: "Standard answer.",
      failure: { kind: "failed", code: "EXTRACTION_EMPTY", log: "error" },
      notice: fallbackMatrix.failed.userMessage,
    });
    expect(server.ended).toEqual([{ reasoningSessionId: "task-1" }]);
  });

  it("max_iterations_reached: the partial answer when there is one, else the standard approach", async () => {
    const partial = scriptedServer((params) => responses.maxIterations(params["taskId"] as string, "Probably yes."));
    expect(await coordinatorFor(partial).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "reasoning",
      answer: "Probably yes.",
      failure: { kind: "max_iterations" },
      notice: fallbackMatrix.max_iterations.userMessage,
    });
    const empty = scriptedServer((params) => responses.maxIterations(params["taskId"] as string, null));
    expect(await coordinatorFor(empty).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      failure: { kind: "max_iterations" },
    });
    expect(partial.ended).toHaveLength(1);
    expect(empty.ended).toHaveLength(1);
  });

  it("low confidence: the answer with a disclaimer (and the standard answer to compare, when asked)", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Maybe Lyon.", 0.3));
    const plain = await coordinatorFor(server).coordinator.handle({ query: strongQuery });
    expect(plain).toMatchObject({
      source: "reasoning",
      band: "low",
      failure: { kind: "low_confidence" },
      text: expect.stringMatching(/^My confidence in this is low/),
    });
    const compared = await coordinatorFor(server, {
      policy: { compareLowConfidenceWithStandard: true },
    }).coordinator.handle({ query: strongQuery });
    expect(compared).toMatchObject({ comparison: standardAnswer });
  });

  it("confidence: the band and the low-confidence row follow the server's confidence (the score, else the trace's report, and a missed desired level)", async () => {
    const contradicted = trace({
      confidence: {
        ...(trace().confidence as NonNullable<ReturnType<typeof trace>["confidence"]>),
        score: 0.2,
        contradictedFacts: [{ subject: "Alice", predicate: "lives_in", object: "Paris" }],
        unsupportedFacts: [{ subject: "Bob", predicate: "owns", object: "Umbrella" }],
      },
    });
    // The score as the server computed it (here in the trace only): low, with the checks that did not hold shown.
    const fromTrace = scriptedServer((params) =>
      responses.completed(params["taskId"] as string, "Alice is in Paris.", null, contradicted),
    );
    const low = await coordinatorFor(fromTrace).coordinator.handle({ query: strongQuery });
    expect(low).toMatchObject({
      source: "reasoning",
      confidence: 0.2,
      band: "insufficient",
      failure: { kind: "low_confidence" },
      notice: fallbackMatrix.low_confidence.userMessage,
    });
    expect(low.kind === "answer" && low.source === "reasoning" && low.summary.keyInformation).toEqual(
      expect.arrayContaining([
        "Contradicted by the graph: Alice lives in Paris",
        "Not found in the graph: Bob owns Umbrella",
      ]),
    );
    // A desired confidence level the server says was not met is the low-confidence row too, hedged one band lower.
    const missed = trace({
      confidence: {
        ...(trace().confidence as NonNullable<ReturnType<typeof trace>["confidence"]>),
        score: 0.85,
        desiredConfidenceLevel: 0.95,
        targetMet: false,
      },
    });
    const short = scriptedServer((params) =>
      responses.completed(params["taskId"] as string, "Probably.", 0.85, missed),
    );
    const hedged = await coordinatorFor(short, { desiredConfidenceLevel: 0.95 }).coordinator.handle({
      query: strongQuery,
    });
    expect(hedged).toMatchObject({
      band: "high",
      failure: { kind: "low_confidence", detail: expect.stringContaining("desired level 0.95") },
      text: expect.stringMatching(/^My current thinking suggests/),
    });
    expect(short.executed[0]).toMatchObject({ outputRequirements: { desiredConfidenceLevel: 0.95 } });
  });

  it("tiered: a standard answer that stands never asks the server (gates not checked)", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Reasoned."));
    const { coordinator } = coordinatorFor(server);
    const outcome = await coordinator.handle({ query: "Tell me about our Q3 numbers." });
    expect(outcome).toMatchObject({
      source: "standard",
      decision: { route: "tiered", gate: { passed: "not_checked" } },
    });
    expect([server.pings(), server.describes(), server.executed.length]).toEqual([0, 0, 0]);
  });

  it("tiered: a refusal escalates whatever the score (standard first, escalate on refusal)", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Reasoned."));
    const { coordinator } = coordinatorFor(server, {
      standard: async () => ({ text: "I'm sorry, I can't help with that." }),
    });
    const outcome = await coordinator.handle({ query: "Tell me about our Q3 numbers." });
    expect(outcome.decision.analysis.score).toBe(0);
    expect(outcome).toMatchObject({
      source: "reasoning",
      answer: "Reasoned.",
      decision: { route: "tiered", gate: { passed: true } },
    });
  });

  it("timeouts: the standard approach, endSession attempted", async () => {
    const server = scriptedServer(() => "hang");
    const outcome = await coordinatorFor(server, { timeoutMs: 100 }).coordinator.handle({ query: strongQuery });
    expect(outcome).toMatchObject({
      source: "standard",
      failure: { kind: "timeout" },
      notice: fallbackMatrix.timeout.userMessage,
    });
    expect(server.ended).toHaveLength(1);
  });

  it("malformed answers: the standard approach", async () => {
    const garbage = scriptedServer(() => ({ status: "done", answer: 42 }));
    expect(await coordinatorFor(garbage).coordinator.handle({ query: strongQuery })).toMatchObject({
      source: "standard",
      failure: { kind: "malformed", code: "MALFORMED_RESPONSE" },
    });
    const someoneElses = scriptedServer(() => responses.completed("another-task", "Yes."));
    expect(await coordinatorFor(someoneElses).coordinator.handle({ query: strongQuery })).toMatchObject({
      failure: { kind: "malformed" },
    });
    const noAnswer = scriptedServer((params) => responses.completed(params["taskId"] as string, ""));
    expect(await coordinatorFor(noAnswer).coordinator.handle({ query: strongQuery })).toMatchObject({
      failure: { kind: "malformed" },
    });
  });

  it("connection and request errors: their rows; everything failing: unavailable", async () => {
    const down = scriptedServer(() => new DeliberateClientError({ code: "CONNECTION_FAILED", message: "refused" }));
    expect(await coordinatorFor(down).coordinator.handle({ query: strongQuery })).toMatchObject({
      failure: { kind: "connection" },
      notice: fallbackMatrix.connection.userMessage,
    });
    const refused = scriptedServer(
      () => new DeliberateClientError({ code: "LIMIT_EXCEEDED", message: "too many sessions" }),
    );
    expect(await coordinatorFor(refused).coordinator.handle({ query: strongQuery })).toMatchObject({
      failure: { kind: "request" },
    });
    const nothing = coordinatorFor(down, {
      standard: async () => {
        throw new Error("standard model down too");
      },
    });
    expect(await nothing.coordinator.handle({ query: strongQuery })).toMatchObject({
      kind: "unavailable",
      failure: { kind: "connection" },
    });
  });

  it("the host's abort rejects (no fallback)", async () => {
    const server = scriptedServer(() => "hang");
    const controller = new AbortController();
    const pending = coordinatorFor(server).coordinator.handle({ query: strongQuery, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: "ABORTED" });
  });
});

describe("transport of the operations and session coherence", () => {
  it("uses the tools when the server advertises tools but not the methods", async () => {
    const server = scriptedServer((params) => responses.completed(params["taskId"] as string, "Yes."), {
      reasoning: capability({ methods: [] }),
    });
    await coordinatorFor(server).coordinator.handle({ query: strongQuery });
    expect(server.via).toEqual(["tool:reasoning_execute_task", "tool:reasoning_end_session"]);
  });

  it("re-engages reasoning for a follow-up to a reasoning turn, with the previous answer as the prior summary", async () => {
    const server = scriptedServer((params) =>
      responses.completed(params["taskId"] as string, `About: ${params["goalQuery"] as string}`),
    );
    const { coordinator } = coordinatorFor(server, { policy: { thresholds: { direct: 0.3 } } });
    await coordinator.handle({ query: strongQuery, conversationId: "c-1" });
    const followUp = await coordinator.handle({ query: "And why is that?", conversationId: "c-1" });
    expect(followUp.decision.analysis.reasons.map((reason) => reason.signal)).toContain("follow_up");
    expect(server.executed[1]).toMatchObject({
      contextData: { hostProvidedPriorReasoningSummary: `About: ${strongQuery}` },
    });
  });
});

describe("sessions kept across a conversation's turns (keepSessionAcrossTurns)", () => {
  // A server that answers in the session it was asked for, with a new signed state on every response.
  function sessionServer(override: (params: Params, call: number) => Reply | undefined = () => undefined) {
    return scriptedServer((params, call) => {
      const scripted = override(params, call);
      if (scripted !== undefined) return scripted;
      return {
        ...responses.completed(params["taskId"] as string, "Yes."),
        reasoningSessionId: params["reasoningSessionId"],
        updatedSessionState: { token: `state-${call}` },
      };
    });
  }
  const reasoningIdOf = (outcome: Awaited<ReturnType<ReturnType<typeof createReasoningCoordinator>["handle"]>>) => {
    if (outcome.kind !== "answer" || outcome.source !== "reasoning")
      throw new Error(`expected a reasoning answer, got ${outcome.kind}`);
    return outcome.reasoningSessionId;
  };

  it("the next turn continues the kept session by its signed state; endConversation ends it with the latest state", async () => {
    const server = sessionServer();
    const { coordinator, events } = coordinatorFor(server, { keepSessionAcrossTurns: true });
    const first = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    expect(server.ended).toEqual([]);
    expect(events.some((event) => event.type === "progress" && event.stage === "session_kept")).toBe(true);
    expect(reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }))).toBe(first);
    expect(server.executed[0]).not.toHaveProperty("sessionState");
    expect(server.executed[1]).toMatchObject({ reasoningSessionId: first, sessionState: { token: "state-1" } });
    expect(server.executed[1]?.["taskId"]).not.toBe(first);
    // Another conversation, and a query with no conversation, get sessions of their own; the latter is ended.
    const other = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "d" }));
    const alone = reasoningIdOf(await coordinator.handle({ query: strongQuery }));
    expect(new Set([first, other, alone]).size).toBe(3);
    expect(server.ended).toEqual([{ reasoningSessionId: alone, sessionState: { token: "state-4" } }]);
    await coordinator.endConversation("c");
    await coordinator.endConversation("c");
    expect(server.ended.slice(1)).toEqual([{ reasoningSessionId: first, sessionState: { token: "state-2" } }]);
  });

  it("off by default: every query ends its session", async () => {
    const server = sessionServer();
    const { coordinator } = coordinatorFor(server);
    const first = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    expect(server.ended).toEqual([{ reasoningSessionId: first, sessionState: { token: "state-1" } }]);
    expect(reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }))).not.toBe(first);
  });

  it("a kept session the server closed meanwhile (NOT_FOUND): the turn starts a new session and is answered", async () => {
    const server = sessionServer((_params, call) =>
      call === 2 ? new DeliberateClientError({ code: "NOT_FOUND", message: "no such session" }) : undefined,
    );
    const { coordinator, events } = coordinatorFor(server, { keepSessionAcrossTurns: {} });
    const first = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    const second = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    expect(second).not.toBe(first);
    expect(events.some((event) => event.type === "progress" && event.stage === "session_restarted")).toBe(true);
    expect(server.executed[2]).not.toHaveProperty("sessionState");
    expect(server.executed[2]).toMatchObject({ taskId: second, reasoningSessionId: second });
    // The new session is the one kept now.
    expect(reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }))).toBe(second);
  });

  it("a turn that falls back ends the kept session, and the next turn starts afresh", async () => {
    const server = sessionServer((params, call) =>
      call === 2 ? responses.failed(params["taskId"] as string) : undefined,
    );
    const { coordinator } = coordinatorFor(server, { keepSessionAcrossTurns: true });
    const first = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    expect(await coordinator.handle({ query: strongQuery, conversationId: "c" })).toMatchObject({
      source: "standard",
      failure: { kind: "failed" },
    });
    expect(server.ended).toEqual([{ reasoningSessionId: first, sessionState: { token: "state-1" } }]);
    expect(reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }))).not.toBe(first);
    expect(server.executed[2]).not.toHaveProperty("sessionState");
  });

  it("a turn after the idle window ends the old session and starts a new one", async () => {
    const server = sessionServer();
    let clock = 1_000_000;
    const { coordinator } = coordinatorFor(server, { keepSessionAcrossTurns: { idleMs: 60_000 }, now: () => clock });
    const first = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    clock += 61_000;
    const second = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    expect(second).not.toBe(first);
    expect(server.ended).toEqual([{ reasoningSessionId: first, sessionState: { token: "state-1" } }]);
  });

  it("abandoning an older session of the conversation leaves the kept one kept", async () => {
    const server = sessionServer((params, call) =>
      call === 1
        ? {
            ...responses.userInput(params["taskId"] as string, "Which city?"),
            reasoningSessionId: params["reasoningSessionId"],
            updatedSessionState: { token: "state-1" },
          }
        : undefined,
    );
    const { coordinator } = coordinatorFor(server, { keepSessionAcrossTurns: true });
    const waiting = await coordinator.handle({ query: strongQuery, conversationId: "c" });
    if (waiting.kind !== "needs_user_input") throw new Error(`expected a question, got ${waiting.kind}`);
    const kept = reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }));
    await coordinator.abandon(waiting.reasoningSessionId);
    expect(server.ended).toEqual([
      { reasoningSessionId: waiting.reasoningSessionId, sessionState: { token: "state-1" } },
    ]);
    expect(reasoningIdOf(await coordinator.handle({ query: strongQuery, conversationId: "c" }))).toBe(kept);
  });
});

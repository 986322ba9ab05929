import {
  createHostContext,
  executeTaskResponseSchema,
  type ExecuteTaskResponse,
  expandNeedsCompletion,
  needsCompletionSchema,
} from "@deliberate/contracts";
import { exportSession, hostModelRouter } from "@deliberate/engine";
import { createTestEngine, errorOf, type TestEngine } from "@deliberate/engine/testing";
import type { Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createKnowledgeGraphModule } from "./module.ts";
import type { KnowledgeGraphOptions } from "./orchestrator/options.ts";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import { scenarioRules } from "./testing/scenario.ts";

type Answers = Record<string, unknown | ((user: string, call: number) => unknown)>;

/** Answers each structured call by its schema name (a function gets the prompt text). */
function responder(answers: Answers) {
  let calls = 0;
  return (name: string, user: string): unknown => {
    calls += 1;
    if (!(name in answers)) throw new Error(`No scripted answer for ${name}`);
    const answer = answers[name];
    return typeof answer === "function" ? (answer as (user: string, call: number) => unknown)(user, calls) : answer;
  };
}

const engines: TestEngine<KnowledgeGraphRepositories>[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function setup(answers: Answers, options: Partial<KnowledgeGraphOptions> & { host?: boolean } = {}) {
  const respond = responder(answers);
  const { host, ...moduleOptions } = options;
  const testEngine = await createTestEngine<KnowledgeGraphRepositories>(
    (call) => respond(call.schemaName ?? "", call.messages.map((message) => message.content).join("\n\n")),
    {
      modules: [createKnowledgeGraphModule({ stateSecret: "test secret", ...moduleOptions })],
      ...(host ? { router: hostModelRouter } : {}),
    },
  );
  engines.push(testEngine);
  /** Calls a tool as `caller` (null: anonymous); host-executed, answers every needs_completion round with the same responder. */
  async function call(
    tool: string,
    args: Record<string, unknown>,
    caller: string | null = "caller-a",
  ): Promise<Record<string, unknown> & { rounds: number }> {
    const invokeOptions = caller === null ? {} : { caller };
    let result = await testEngine.engine.invoke(tool, args, invokeOptions);
    let rounds = 0;
    const known = createHostContext();
    while (result["status"] === "needs_completion") {
      const step = needsCompletionSchema.parse(result);
      rounds += 1;
      result = await testEngine.engine.invoke(
        "reasoning_submit",
        {
          resume_token: step.resume_token,
          answers: expandNeedsCompletion(step, known).map((prompt) => ({
            prompt_id: prompt.id,
            answer: respond(prompt.name, prompt.user),
          })),
        },
        invokeOptions,
      );
    }
    return { ...result, rounds };
  }
  async function execute(
    args: Record<string, unknown>,
    caller: string | null = "caller-a",
  ): Promise<ExecuteTaskResponse & { rounds: number }> {
    const { rounds, ...result } = await call("reasoning_execute_task", args, caller);
    return { ...executeTaskResponseSchema.parse(result), rounds };
  }
  async function counts() {
    const db = testEngine.store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const count = async (table: string) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      sessions: await count("knowledge_graph_sessions"),
      entities: await count("knowledge_graph_entities"),
      relations: await count("knowledge_graph_relations"),
      invocations: await count("invocations"),
    };
  }
  return { ...testEngine, execute, call, counts };
}

const family = {
  entities: [
    { name: "Alice", type: "person", observations: ["born 1950"] },
    { name: "Bob", type: "person", observations: [] },
    { name: "Carol", type: "person", observations: [] },
    { name: "Dave", type: "person", observations: [] },
  ],
  relations: [
    { subject: "Alice", predicate: "parent_of", object: "Bob", confidence: 1 },
    { subject: "Bob", predicate: "parent_of", object: "Carol", confidence: 0.9 },
    { subject: "Carol", predicate: "parent_of", object: "Dave", confidence: 1 },
  ],
};

/** The deductive chain's three rules: the shared test scenario's. */
const threeRules = scenarioRules;

const familyAnswer = {
  reasoning: [
    "Alice is the parent of Bob, Bob of Carol, Carol of Dave.",
    "By the rules, Alice is an ancestor of Dave.",
  ],
  answer: "Yes: Alice is an ancestor of Dave.",
  answerKey: "yes",
  confidence: 0.9,
  supportingFacts: [
    { subject: "Alice", predicate: "ancestor_of", object: "Dave" },
    { subject: "Alice", predicate: "parent_of", object: "Bob" },
  ],
};

const deductiveScript: Answers = {
  knowledge_graph_extraction: family,
  knowledge_graph_rules: threeRules,
  knowledge_graph_answer: familyAnswer,
};
const deductiveRequest = {
  taskId: "task-1",
  reasoningType: "deductive",
  goalQuery: "Is Alice an ancestor of Dave?",
  contextData: {
    domainKnowledge:
      "Alice is Bob's parent; Bob is Carol's parent; Carol is Dave's parent. A parent is an ancestor; ancestry is transitive.",
  },
};

describe("reasoning_execute_task: deductive", () => {
  it("derives the expected triples in code from three rules, each with its derivation, and stores them", async () => {
    const { execute, store } = await setup(deductiveScript);
    const response = await execute(deductiveRequest);
    expect(response.status).toBe("completed");
    expect(response.result?.reasonedAnswer).toBe("Yes: Alice is an ancestor of Dave.");
    const trace = response.result?.reasoningTrace;
    const derived = new Set(
      trace?.derivations.map((item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`),
    );
    const pairs = [
      ["Alice", "Bob"],
      ["Bob", "Carol"],
      ["Carol", "Dave"],
      ["Alice", "Carol"],
      ["Bob", "Dave"],
      ["Alice", "Dave"],
    ];
    expect(derived).toEqual(new Set(pairs.flatMap(([a, b]) => [`${a} ancestor_of ${b}`, `${b} descendant_of ${a}`])));
    for (const item of trace?.derivations ?? []) {
      expect(threeRules.rules.map((rule) => rule.name)).toContain(item.derivation.rule);
      expect(item.derivation.premises.length).toBeGreaterThan(0);
    }
    const aliceDave = trace?.derivations.find(
      (item) =>
        item.triple.subject === "Alice" && item.triple.object === "Dave" && item.triple.predicate === "ancestor_of",
    );
    expect(aliceDave?.derivation.rule).toBe("ancestry is transitive");
    expect(trace?.pathValidation).toMatchObject({
      from: "Alice",
      to: "Dave",
      valid: true,
      path: [{ subject: "Alice", predicate: "ancestor_of", object: "Dave" }],
    });
    // Confidence: the model's bounded word, graph support of the cited facts (both believed), and the proof code checked.
    expect(response.result?.confidenceMethod).toBe("combined");
    expect(trace?.confidence?.components).toEqual({
      verbalizedConfidence: 0.9,
      consistency: null,
      graphSupport: 0.75,
      basis: 1,
    });
    expect(trace?.confidence?.basis?.kind).toBe("proof");
    expect(trace?.confidence?.restsOn).toBe("derived");
    expect(response.result?.confidenceScore).toBeCloseTo(0.2 * 0.9 + 0.8 * ((0.4 * 0.75 + 0.4 * 1) / 0.8), 4);

    const stored = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    const deduced = stored.relations.filter((relation) => relation.validity === "derived");
    expect(deduced).toHaveLength(12);
    expect(
      deduced.every(
        (relation) =>
          relation.derivation !== null &&
          relation.provenance.kind === "deduction" &&
          relation.provenance.taskId === "task-1",
      ),
    ).toBe(true);
    // Certain given the rules: a deduction inherits the confidence of its weakest premise.
    const entityId = (name: string) => stored.entities.find((entity) => entity.name === name)?.id;
    expect(
      deduced.find((relation) => relation.subjectId === entityId("Alice") && relation.objectId === entityId("Carol"))
        ?.confidence,
    ).toBe(0.9);
    expect(
      deduced.find((relation) => relation.subjectId === entityId("Alice") && relation.objectId === entityId("Bob"))
        ?.confidence,
    ).toBe(1);
  });

  it("continues the same graph by reasoningSessionId alone or by the signed state, and refuses a tampered state writing nothing", async () => {
    const { execute, counts } = await setup(deductiveScript);
    const first = await execute(deductiveRequest);
    const byId = await execute({ ...deductiveRequest, taskId: "task-2", reasoningSessionId: first.reasoningSessionId });
    expect(byId.status).toBe("completed");
    expect(byId.reasoningSessionId).toBe(first.reasoningSessionId);
    // Nothing new to deduce: the closure is already in the graph.
    expect(byId.result?.reasoningTrace?.derivations).toEqual([]);
    const byState = await execute({ ...deductiveRequest, taskId: "task-3", sessionState: byId.updatedSessionState });
    expect(byState.reasoningSessionId).toBe(first.reasoningSessionId);

    const before = await counts();
    const token = byState.updatedSessionState?.token as string;
    const tampered = `${token.slice(0, 8)}${token[8] === "A" ? "B" : "A"}${token.slice(9)}`;
    const refused = await errorOf(
      execute({ ...deductiveRequest, taskId: "task-4", sessionState: { token: tampered } }),
    );
    expect(refused.code).toBe("INVALID_INPUT");
    expect(refused.issues.map((issue) => issue.field)).toEqual(["sessionState"]);
    // A stale state (an earlier revision) is refused too.
    const stale = await errorOf(
      execute({ ...deductiveRequest, taskId: "task-5", sessionState: first.updatedSessionState }),
    );
    expect(stale.code).toBe("CONFLICT");
    expect(await counts()).toEqual(before);
  });
});

describe("reasoning_execute_task: inductive and abductive", () => {
  const infections = {
    entities: [
      { name: "Measles", type: "disease", observations: [] },
      { name: "Influenza", type: "disease", observations: [] },
      { name: "Dengue", type: "disease", observations: [] },
      { name: "Fever", type: "symptom", observations: [] },
      { name: "Rash", type: "symptom", observations: [] },
      { name: "Patient", type: "person", observations: [] },
    ],
    relations: [
      { subject: "Measles", predicate: "causes", object: "Fever", confidence: 1 },
      { subject: "Influenza", predicate: "causes", object: "Fever", confidence: 1 },
      { subject: "Dengue", predicate: "causes", object: "Fever", confidence: 1 },
      { subject: "Measles", predicate: "causes", object: "Rash", confidence: 1 },
      { subject: "Patient", predicate: "has_symptom", object: "Fever", confidence: 1 },
      { subject: "Patient", predicate: "has_symptom", object: "Rash", confidence: 1 },
    ],
  };
  const answer = { reasoning: ["r"], answer: "a", answerKey: "a", confidence: 0.7, supportingFacts: [] };

  it("inductive: a pattern becomes an abstract node, its support measured in the graph", async () => {
    const { execute, store } = await setup({
      knowledge_graph_extraction: infections,
      knowledge_graph_induction: {
        patterns: [
          {
            description: "Several diseases cause fever",
            members: ["Measles", "Influenza", "Dengue"],
            sharedRelation: { predicate: "causes", object: "Fever" },
            abstraction: { name: "Febrile disease", type: "disease class", definition: "A disease that causes fever" },
            memberRelation: "instance_of",
            confidence: 0.8,
            reasoning: "All three cause fever.",
          },
          {
            description: "Diseases with a rash",
            members: ["Measles", "Influenza"],
            sharedRelation: { predicate: "causes", object: "Rash" },
            abstraction: { name: "Exanthem", type: "disease class", definition: "A disease with a rash" },
            memberRelation: "instance_of",
            confidence: 0.8,
            reasoning: "Claimed.",
          },
        ],
      },
      knowledge_graph_answer: {
        ...answer,
        answer: "Measles, Influenza and Dengue are febrile diseases.",
        supportingFacts: [{ subject: "Measles", predicate: "causes", object: "Fever" }],
      },
    });
    const response = await execute({
      taskId: "t",
      reasoningType: "inductive",
      goalQuery: "What do these diseases have in common?",
    });
    expect(response.status).toBe("completed");
    const graph = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    const febrile = graph.entities.find((entity) => entity.name === "Febrile disease");
    expect(febrile).toMatchObject({ validity: "hypothesized", confidence: 0.8, provenance: { kind: "induction" } });
    const links = graph.relations.filter((relation) => relation.objectId === febrile?.id);
    expect(links).toHaveLength(3);
    expect(
      links.every((relation) => relation.predicate === "instance_of" && relation.validity === "hypothesized"),
    ).toBe(true);
    // Only one of the two claimed members really has a rash in the graph: support 0.5.
    expect(graph.entities.find((entity) => entity.name === "Exanthem")?.confidence).toBe(0.4);
  });

  it("abductive: 2-3 hypotheses scored in code; the best is added with its justification", async () => {
    const patient = { subject: "Patient", subjectType: "person" };
    const { execute, store } = await setup({
      knowledge_graph_extraction: infections,
      knowledge_graph_hypotheses: {
        observations: [
          { description: "The patient has a fever", entities: ["Patient", "Fever"] },
          { description: "The patient has a rash", entities: ["Patient", "Rash"] },
        ],
        hypotheses: [
          {
            name: "flu and allergy",
            explanation: "Influenza explains the fever, an allergy the rash.",
            additions: [
              { ...patient, predicate: "has_disease", object: "Influenza", objectType: "disease" },
              { ...patient, predicate: "has_disease", object: "Allergy", objectType: "disease" },
              {
                subject: "Allergy",
                subjectType: "disease",
                predicate: "causes",
                object: "Rash",
                objectType: "symptom",
              },
            ],
          },
          {
            name: "measles",
            explanation: "Measles causes both.",
            additions: [{ ...patient, predicate: "has_disease", object: "Measles", objectType: "disease" }],
          },
          {
            name: "no fever",
            explanation: "The fever is a mistake.",
            additions: [{ ...patient, predicate: "not_has_symptom", object: "Fever", objectType: "symptom" }],
          },
        ],
      },
      knowledge_graph_answer: {
        ...answer,
        answer: "Most likely measles.",
        supportingFacts: [{ subject: "Patient", predicate: "has_disease", object: "Measles" }],
      },
    });
    const response = await execute({
      taskId: "t",
      reasoningType: "abductive",
      goalQuery: "What best explains the patient's symptoms?",
    });
    const hypotheses = response.result?.reasoningTrace?.hypotheses ?? [];
    expect(hypotheses.map((item) => item.name)).toEqual(["measles", "flu and allergy", "no fever"]);
    expect(hypotheses[0]).toMatchObject({ selected: true, coverage: 1, consistency: 1, newElements: 1 });
    expect(hypotheses[2]).toMatchObject({
      selected: false,
      consistency: 0,
      contradictions: [{ subject: "Patient", predicate: "not_has_symptom", object: "Fever" }],
    });
    expect(response.result?.reasoningTrace?.steps.find((step) => step.kind === "abduce")?.summary).toMatch(
      /Selected 'measles'/,
    );
    const graph = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    const added = graph.relations.filter((relation) => relation.provenance.kind === "abduction");
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      predicate: "has_disease",
      validity: "hypothesized",
      confidence: hypotheses[0]?.score,
    });
    // The answer cites the hypothesis just added: graph support counts it.
    expect(response.result?.reasoningTrace?.confidence?.supportingFacts).toEqual([
      { subject: "Patient", predicate: "has_disease", object: "Measles" },
    ]);
  });
});

const weatherTool = {
  name: "weather",
  description: "Current weather of a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string", minLength: 2 } },
    required: ["city"],
    additionalProperties: false,
  },
};

describe("reasoning_execute_task: planAndExecuteCoT with the host's tools and the user", () => {
  const seed = {
    entities: [
      { name: "Picnic", type: "event", observations: ["planned for Saturday"] },
      { name: "Paris", type: "place", observations: [] },
    ],
    relations: [{ subject: "Picnic", predicate: "located_in", object: "Paris", confidence: 1 }],
  };
  const script: Answers = {
    knowledge_graph_extraction: (user: string) =>
      user.includes("result of the tool")
        ? {
            entities: [{ name: "Rain", type: "weather", observations: ["80% chance"] }],
            relations: [{ subject: "Paris", predicate: "expects", object: "Rain", confidence: 0.8 }],
          }
        : user.includes("user's answer")
          ? {
              entities: [{ name: "Umbrella", type: "object", observations: [] }],
              relations: [{ subject: "Picnic", predicate: "has", object: "Umbrella", confidence: 1 }],
            }
          : seed,
    knowledge_graph_plan: {
      steps: [
        { kind: "toolCall", purpose: "Get the weather", toolName: "weather", toolArguments: { city: "Paris" } },
        { kind: "askUser", purpose: "Know the group's gear", question: "Does the group have umbrellas?" },
        { kind: "deduce", purpose: "Decide" },
      ],
    },
    knowledge_graph_rules: {
      rules: [
        {
          name: "rain without cover",
          statement: "An event in a place that expects rain is at risk.",
          conditions: [
            { subject: "?e", predicate: "located_in", object: "?p" },
            { subject: "?p", predicate: "expects", object: "Rain" },
          ],
          different: [],
          conclusions: [{ subject: "?e", predicate: "at_risk_from", object: "Rain" }],
        },
      ],
      query: { kind: "triple", subject: "Picnic", predicate: "at_risk_from", object: "Rain" },
    },
    knowledge_graph_answer: {
      reasoning: ["Rain is expected; they have umbrellas."],
      answer: "Go, with umbrellas.",
      answerKey: "go with umbrellas",
      confidence: 0.7,
      supportingFacts: [{ subject: "Picnic", predicate: "at_risk_from", object: "Rain" }],
    },
  };
  const request = {
    taskId: "plan-1",
    reasoningType: "planAndExecuteCoT",
    goalQuery: "Should the picnic in Paris go ahead on Saturday?",
    contextData: { availableTools: [weatherTool] },
  };

  it("asks the host to call a tool, takes the result into the graph, asks the user, then completes", async () => {
    const { execute, store } = await setup(script);
    const first = await execute(request);
    expect(first.status).toBe("pending_tool_call");
    expect(first.toolCallRequest).toMatchObject({ toolName: "weather", toolArguments: { city: "Paris" } });
    expect(first.result?.plan?.steps.map((step) => step.status)).toEqual(["waiting", "pending", "pending"]);
    const sessionId = first.reasoningSessionId as string;
    expect((await store.knowledgeGraph.findSession(sessionId))?.state).toBe("pending_tool_call");

    // The session waits: a call without the result is refused, naming the field, writing nothing.
    const missing = await errorOf(execute({ ...request, taskId: "plan-2", reasoningSessionId: sessionId }));
    expect(missing.issues.map((issue) => issue.field)).toEqual(["toolResults"]);
    const wrongId = await errorOf(
      execute({
        ...request,
        taskId: "plan-2",
        reasoningSessionId: sessionId,
        toolResults: [{ toolCallId: "nope", result: "x" }],
      }),
    );
    expect(wrongId.issues.map((issue) => issue.field)).toEqual(["toolResults.0.toolCallId"]);

    const second = await execute({
      ...request,
      taskId: "plan-2",
      sessionState: first.updatedSessionState,
      toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: { forecast: "rain", probability: 0.8 } }],
    });
    expect(second.status).toBe("pending_user_input");
    expect(second.userInputRequest).toBe("Does the group have umbrellas?");
    const rain = (await store.knowledgeGraph.loadGraph(sessionId)).relations.find(
      (relation) => relation.predicate === "expects",
    );
    expect(rain?.provenance).toMatchObject({ kind: "tool_result", reference: first.toolCallRequest?.toolCallId });

    const third = await execute({
      ...request,
      taskId: "plan-3",
      reasoningSessionId: sessionId,
      userInput: "Yes, everyone has one.",
    });
    expect(third.status).toBe("completed");
    expect(third.result?.reasonedAnswer).toBe("Go, with umbrellas.");
    expect(third.result?.plan?.steps.map((step) => step.status)).toEqual(["done", "done", "done"]);
    expect(third.result?.reasoningTrace?.steps.map((step) => step.kind)).toEqual([
      "seed",
      "plan",
      "toolCall",
      "toolResult",
      "askUser",
      "userInput",
      "deduce",
      "answer",
    ]);
    expect(third.result?.reasoningTrace?.derivations.map((item) => item.triple)).toEqual([
      { subject: "Picnic", predicate: "at_risk_from", object: "Rain" },
    ]);
    expect((await store.knowledgeGraph.findSession(sessionId))?.state).toBe("active");
  });

  it("works host-executed with no key, through needs_completion rounds, to the same result", async () => {
    const { execute } = await setup(script, { host: true });
    const first = await execute(request);
    expect(first.status).toBe("pending_tool_call");
    expect(first.rounds).toBe(2);
    const second = await execute({
      ...request,
      taskId: "plan-2",
      reasoningSessionId: first.reasoningSessionId,
      toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: "rain" }],
    });
    expect(second.status).toBe("pending_user_input");
    const third = await execute({
      ...request,
      taskId: "plan-3",
      reasoningSessionId: first.reasoningSessionId,
      userInput: "Yes.",
    });
    expect(third.status).toBe("completed");
    expect(third.rounds).toBe(3);
    expect(third.result?.reasonedAnswer).toBe("Go, with umbrellas.");
  });

  it("returns the plan with the prompts of its steps for detailedPlanWithPrompts", async () => {
    const { execute } = await setup(script);
    const response = await execute({ ...request, outputRequirements: { format: "detailedPlanWithPrompts" } });
    expect(response.status).toBe("completed");
    expect(response.result?.plan?.steps.map((step) => step.kind)).toEqual(["toolCall", "askUser", "deduce"]);
    const details = response.result?.promptDetails ?? [];
    expect(details.map((prompt) => [prompt.step, prompt.name])).toEqual([
      [2, "knowledge_graph_rules"],
      [3, "knowledge_graph_answer"],
    ]);
    expect(details[0]?.user).toContain("Picnic");
    expect(details[0]?.schema).toMatchObject({ type: "object" });
    expect(response.result?.promptsToExecute?.[0]).toContain(details[0]?.user as string);
  });
});

describe("reasoning_execute_task: CoT variations", () => {
  const answerSample = (key: string, confidence: number) => ({
    reasoning: ["r"],
    answer: `It is ${key}.`,
    answerKey: key,
    confidence,
    supportingFacts: [{ subject: "Alice", predicate: "parent_of", object: "Bob" }],
  });

  it("selfConsistency: samples concurrently and computes agreement in code", async () => {
    const { execute, model } = await setup({
      ...deductiveScript,
      knowledge_graph_answer_sample: (_user: string, call: number) =>
        call % 3 === 0 ? answerSample("no", 0.4) : answerSample("yes", 0.8),
    });
    const response = await execute({ ...deductiveRequest, preferredCoTVariation: "selfConsistency" });
    const consistency = response.result?.reasoningTrace?.selfConsistency;
    expect(consistency?.samples).toBe(3);
    expect(consistency?.clusters.map((cluster) => cluster.size)).toEqual([2, 1]);
    expect(response.result?.reasoningTrace?.confidence?.components.consistency).toBeCloseTo(2 / 3, 4);
    expect(response.result?.reasonedAnswer).toBe("It is yes.");
    expect(model.calls.filter((call) => call.schemaName === "knowledge_graph_answer_sample")).toHaveLength(3);
    // Each sample is asked independently (its prompt says which attempt it is).
    expect(
      new Set(
        model.calls
          .filter((call) => call.schemaName === "knowledge_graph_answer_sample")
          .map((call) => call.messages[0]?.content),
      ).size,
    ).toBe(3);
  });

  it("treeOfThoughts_basic: bounded breadth and depth, each thought scored in code", async () => {
    const { execute } = await setup(
      {
        ...deductiveScript,
        knowledge_graph_thoughts: {
          thoughts: [
            {
              thought: "Follow the parent chain",
              supportingFacts: [{ subject: "Alice", predicate: "parent_of", object: "Bob" }],
              promise: 0.6,
            },
            { thought: "Guess", supportingFacts: [], promise: 0.6 },
          ],
        },
      },
      { treeOfThoughts: { breadth: 2, depth: 2 } },
    );
    const response = await execute({ ...deductiveRequest, preferredCoTVariation: "treeOfThoughts_basic" });
    const thoughts = response.result?.reasoningTrace?.thoughts ?? [];
    expect(thoughts).toHaveLength(4);
    // Same promise; graph support (2/3 vs 1/2) decides.
    expect(thoughts.filter((thought) => thought.kept).map((thought) => thought.thought)).toEqual([
      "Follow the parent chain",
      "Follow the parent chain",
    ]);
    expect(thoughts[0]?.score).toBeCloseTo(0.5 * 0.6 + 0.5 * (2 / 3), 4);
  });

  it("selfAsk: graph sub-questions answered at once, a tool sub-question becomes a tool-call request", async () => {
    const { execute } = await setup({
      ...deductiveScript,
      knowledge_graph_self_ask: {
        subQuestions: [
          { source: "graph", question: "Who is Bob's parent?" },
          {
            source: "tool",
            question: "What does the registry say?",
            toolName: "weather",
            toolArguments: { city: "Paris" },
          },
        ],
      },
    });
    const request = {
      ...deductiveRequest,
      preferredCoTVariation: "selfAsk",
      contextData: { ...deductiveRequest.contextData, availableTools: [weatherTool] },
    };
    const first = await execute(request);
    expect(first.status).toBe("pending_tool_call");
    const second = await execute({
      ...request,
      reasoningSessionId: first.reasoningSessionId,
      toolResults: [{ toolCallId: first.toolCallRequest?.toolCallId, result: "sunny" }],
    });
    expect(second.status).toBe("completed");
    expect(second.result?.reasoningTrace?.subQuestions).toEqual([
      { question: "Who is Bob's parent?", source: "graph", answer: "Yes: Alice is an ancestor of Dave." },
      { question: "What does the registry say?", source: "tool", answer: "sunny" },
    ]);
  });

  it("reports an unsupported variation instead of ignoring it", async () => {
    const { execute } = await setup(deductiveScript);
    const response = await execute({ ...deductiveRequest, preferredCoTVariation: "chainOfVerification" });
    expect(response.status).toBe("completed");
    expect(response.notices).toContainEqual({
      field: "preferredCoTVariation",
      message: expect.stringContaining("'chainOfVerification' is not supported"),
    });
    expect(response.result?.reasoningTrace?.cotVariation).toEqual({
      requested: "chainOfVerification",
      used: "standardCoT",
    });
  });
});

describe("reasoning_execute_task: failures, limits and lifecycle", () => {
  it("makes an empty extraction a visible failure and writes nothing", async () => {
    const { execute, counts } = await setup({ knowledge_graph_extraction: { entities: [], relations: [] } });
    const response = await execute({ taskId: "t", reasoningType: "deductive", goalQuery: "Hmm?" });
    expect(response).toMatchObject({
      status: "failed",
      reasoningSessionId: null,
      updatedSessionState: null,
      error: { code: 4220, reason: "EXTRACTION_EMPTY" },
    });
    expect(await counts()).toMatchObject({ sessions: 0, entities: 0, relations: 0 });
  });

  it("refuses bad requests naming the field and writes nothing", async () => {
    const { execute, counts } = await setup(deductiveScript);
    const missing = await errorOf(execute({ taskId: "t", reasoningType: "deductive" }));
    expect(missing.issues.map((issue) => issue.field)).toEqual(["goalQuery"]);
    const badType = await errorOf(execute({ ...deductiveRequest, reasoningType: "lateral" }));
    expect(badType.issues.map((issue) => issue.field)).toEqual(["reasoningType"]);
    const badTool = await errorOf(
      execute({
        ...deductiveRequest,
        contextData: { availableTools: [{ name: "x", inputSchema: { type: "string" } }] },
      }),
    );
    expect(badTool.issues.map((issue) => issue.field)).toEqual(["contextData.availableTools.0.inputSchema.type"]);
    const orphan = await errorOf(execute({ ...deductiveRequest, reasoningSessionId: "fresh-1", userInput: "hello" }));
    expect(orphan.issues.map((issue) => issue.field)).toEqual(["userInput"]);
    expect(await counts()).toEqual({ sessions: 0, entities: 0, relations: 0, invocations: 0 });
  });

  it("stops at maxSteps with max_iterations_reached and the partial trace, keeping what was found", async () => {
    const { execute } = await setup({
      knowledge_graph_extraction: family,
      knowledge_graph_plan: {
        steps: [
          { kind: "deduce", purpose: "first" },
          { kind: "abduce", purpose: "second" },
        ],
      },
      knowledge_graph_rules: threeRules,
    });
    const response = await execute({
      ...deductiveRequest,
      reasoningType: "planAndExecuteCoT",
      outputRequirements: { maxSteps: 2 },
    });
    expect(response.status).toBe("max_iterations_reached");
    expect(response.result?.reasonedAnswer).toBeNull();
    expect(response.result?.reasoningTrace?.steps.map((step) => step.kind)).toEqual(["seed", "plan", "deduce"]);
    expect(response.result?.plan?.steps.map((step) => step.status)).toEqual(["done", "not_reached"]);
    expect(response.result?.reasoningTrace?.budget).toMatchObject({ iterations: 2, maxIterations: 2 });
    expect(response.notices.map((notice) => notice.field)).toContain("outputRequirements.maxSteps");
    expect(response.updatedSessionState).not.toBeNull();
  });

  it("merges entity names deterministically and asks the model only about the ambiguous ones", async () => {
    const { execute, model, store } = await setup({
      knowledge_graph_extraction: {
        entities: [
          { name: "Acme Corp", type: "organization", observations: ["makes widgets"] },
          { name: "ACME corp.", type: "organization", observations: ["based in Lyon"] },
          { name: "Acme", type: "organization", observations: [] },
          { name: "Lyon", type: "place", observations: [] },
        ],
        relations: [{ subject: "Acme", predicate: "located_in", object: "Lyon", confidence: 1 }],
      },
      knowledge_graph_resolution: (user: string) => ({
        decisions: { pair_0: { same: user.includes("Acme Corp"), reason: "same company" } },
      }),
      knowledge_graph_rules: { rules: threeRules.rules.slice(0, 1), query: { kind: "none" } },
      knowledge_graph_answer: { ...familyAnswer, supportingFacts: [] },
    });
    const response = await execute({ taskId: "t", reasoningType: "deductive", goalQuery: "Where is Acme?" });
    const resolution = model.calls.filter((call) => call.schemaName === "knowledge_graph_resolution");
    expect(resolution).toHaveLength(1);
    expect(resolution[0]?.messages[0]?.content).toContain("pair_0: Acme Corp [organization]");
    const graph = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    expect(graph.entities.map((entity) => entity.name)).toEqual(["Acme Corp", "Lyon"]);
    expect(graph.entities[0]?.observations).toEqual(["makes widgets", "based in Lyon"]);
    expect(graph.relations).toHaveLength(1);
  });

  it("endSession frees a session: it cannot continue, ending again reports it, its graph stays exportable", async () => {
    const { execute, call, engine } = await setup(deductiveScript);
    const first = await execute(deductiveRequest);
    const ended = await call("reasoning_end_session", { reasoningSessionId: first.reasoningSessionId });
    expect(ended).toMatchObject({ status: "ended", alreadyClosed: false, entities: 4, relations: 15 });
    const again = await call("reasoning_end_session", { sessionState: first.updatedSessionState });
    expect(again).toMatchObject({ status: "ended", alreadyClosed: true });
    const refused = await errorOf(execute({ ...deductiveRequest, reasoningSessionId: first.reasoningSessionId }));
    expect(refused.code).toBe("NOT_FOUND");
    expect(refused.message).toMatch(/was ended/);
    const record = await engine.readSession(first.reasoningSessionId as string);
    expect((record["knowledgeGraph"] as { state: string }).state).toBe("ended");
    expect((record["knowledgeGraph"] as { relations: unknown[] }).relations).toHaveLength(15);
    expect((await errorOf(call("reasoning_end_session", { reasoningSessionId: "unknown" }))).code).toBe("NOT_FOUND");
  });

  it("expires idle sessions after the timeout and caps live sessions", async () => {
    const { execute, clock, engine, store } = await setup(deductiveScript, {
      idleTimeoutMs: 60_000,
      maxActiveSessions: 2,
    });
    const first = await execute({ ...deductiveRequest, reasoningSessionId: "s-1" });
    await execute({ ...deductiveRequest, reasoningSessionId: "s-2" });
    const capped = await errorOf(execute({ ...deductiveRequest, reasoningSessionId: "s-3" }));
    expect(capped.code).toBe("LIMIT_EXCEEDED");
    // It says when a place frees, but names no session: the sessions may be other callers'.
    expect(capped.hint).toMatch(/next place frees at \d{4}-\d\d-\d\dT[\d:.]+Z/);
    expect(JSON.stringify(capped.toJSON())).not.toMatch(/s-1|s-2/);
    expect(await store.knowledgeGraph.findSession("s-3")).toBeUndefined();

    clock.advance(61_000);
    const expired = await errorOf(execute({ ...deductiveRequest, reasoningSessionId: first.reasoningSessionId }));
    expect(expired.code).toBe("NOT_FOUND");
    expect(expired.message).toMatch(/expired/);
    // Idle sessions no longer count: a new one starts.
    expect((await execute({ ...deductiveRequest, reasoningSessionId: "s-3" })).status).toBe("completed");
    // The background task records the expiry.
    const task = engine.tasks.find((candidate) => candidate.name === "knowledge-graph-idle-expiry");
    await task?.run({ store, now: clock.now(), signal: new AbortController().signal } as never);
    expect((await store.knowledgeGraph.findSession("s-2"))?.state).toBe("expired");
  });

  it("counts a session idle from the end of its last call, however long the call took", async () => {
    let during: (() => void) | undefined;
    // Each model answer takes 40 s of the test clock: the call lasts longer than the 60-second idle timeout.
    const slowScript = Object.fromEntries(
      Object.entries(deductiveScript).map(([name, answer]) => [
        name,
        (user: string, call: number) => {
          during?.();
          return typeof answer === "function"
            ? (answer as (user: string, call: number) => unknown)(user, call)
            : answer;
        },
      ]),
    );
    const { execute, clock } = await setup(slowScript, { idleTimeoutMs: 60_000, maxActiveSessions: 1 });
    during = () => clock.advance(40_000);
    const first = await execute({ ...deductiveRequest, reasoningSessionId: "long-1" });
    expect(first.status).toBe("completed");
    during = undefined;
    // Right after it, the session is live: it holds the only place, and it can be continued.
    expect((await errorOf(execute({ ...deductiveRequest, reasoningSessionId: "long-2" }))).code).toBe("LIMIT_EXCEEDED");
    expect((await execute({ ...deductiveRequest, reasoningSessionId: "long-1" })).status).toBe("completed");
  });

  it("publishes the capability object generated from what is implemented, and the protocol methods", async () => {
    const { engine } = await setup({}, { maxPlanDepth: 4 });
    expect(engine.capabilities["reasoning"]).toMatchObject({
      supportedReasoningTypes: ["inductive", "deductive", "abductive", "planAndExecuteCoT"],
      supportedCoTVariations: ["standardCoT", "selfConsistency", "selfAsk", "treeOfThoughts_basic"],
      supportedPlanExecutionFeatures: { maxPlanDepth: 4, allowsToolIntegrationViaHost: true },
      confidenceScoring: { defaultMethod: "combined", returnsScore: true },
      outputFormatsSupported: ["finalAnswerWithTrace", "detailedPlanWithPrompts"],
    });
    expect(Object.fromEntries(engine.methods)).toEqual({
      "reasoning/executeTask": "reasoning_execute_task",
      "reasoning/endSession": "reasoning_end_session",
    });
  });

  it("every call writes one invocation row, host-executed rounds included", async () => {
    const server = await setup(deductiveScript);
    const first = await server.execute(deductiveRequest);
    await server.execute({ ...deductiveRequest, preferredCoTVariation: "selfConsistency" }).catch(() => undefined);
    expect((await server.counts()).invocations).toBe(2);
    // The rows name the reasoning session and carry the answer's confidence (camelCase wire fields).
    const [row] = await server.store.invocations.list({ sessionId: first.reasoningSessionId ?? "none", limit: 1 });
    expect(row).toMatchObject({
      tool: "reasoning_execute_task",
      session_id: first.reasoningSessionId,
      quality: first.result?.confidenceScore,
    });
    const host = await setup(deductiveScript, { host: true });
    const response = await host.execute(deductiveRequest);
    expect(response.rounds).toBe(3);
    expect(response.status).toBe("completed");
    expect((await host.counts()).invocations).toBe(1);
  });
});

describe("reasoning_execute_task: confidence seeking, growth limit, exports", () => {
  it("samples more answers when the confidence is below desiredConfidenceLevel, and says so", async () => {
    const { execute } = await setup({
      ...deductiveScript,
      knowledge_graph_answer: { ...familyAnswer, confidence: 0.2, supportingFacts: [] },
      knowledge_graph_answer_sample: { ...familyAnswer, confidence: 0.9 },
    });
    const response = await execute({ ...deductiveRequest, outputRequirements: { desiredConfidenceLevel: 0.8 } });
    const confidence = response.result?.reasoningTrace?.confidence;
    expect(response.result?.reasoningTrace?.selfConsistency?.samples).toBe(4);
    expect(confidence?.components.consistency).toBe(1);
    expect(confidence?.components.verbalizedConfidence).toBe(0.2);
    expect(confidence?.targetMet).toBe(false);
    expect(response.notices.map((notice) => notice.field)).toContain("outputRequirements.desiredConfidenceLevel");
  });

  it("stops adding the model's proposals at the graph-growth limit and ends with max_iterations_reached", async () => {
    const { execute, store } = await setup(deductiveScript, { maxGraphGrowth: 5 });
    const response = await execute(deductiveRequest);
    expect(response.status).toBe("max_iterations_reached");
    expect(response.result?.reasoningTrace?.budget.graphGrowth).toBeLessThanOrEqual(5);
    const stored = await store.knowledgeGraph.countGraph(response.reasoningSessionId as string);
    expect(stored.entities + stored.relations).toBeLessThanOrEqual(5);
    expect(response.notices.some((notice) => notice.message.includes("Graph growth limit"))).toBe(true);
  });

  it("bounds deduced relations by maxDerivedFacts, not by the growth budget, and says so", async () => {
    const unbounded = await setup(deductiveScript, { maxGraphGrowth: 7 });
    expect((await unbounded.execute(deductiveRequest)).status).toBe("completed");
    const { execute, store } = await setup(deductiveScript, { maxDerivedFacts: 4 });
    const response = await execute(deductiveRequest);
    expect(response.status).toBe("max_iterations_reached");
    const stored = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    expect(stored.relations.filter((relation) => relation.derivation !== null)).toHaveLength(4);
    expect(response.notices.some((notice) => notice.message.includes("4 deduced relations per call"))).toBe(true);
  });

  it("exports the session's graph as JSON, Markdown and Mermaid", async () => {
    const { execute, engine } = await setup(deductiveScript);
    const response = await execute(deductiveRequest);
    const record = await engine.readSession(response.reasoningSessionId as string);
    const markdown = exportSession(record, "markdown", engine.sections);
    expect(markdown).toContain("## Knowledge graph");
    // Status, then validity, of each fact; the last column names what a fact conflicts with ("—" when nothing).
    expect(markdown).toContain(
      "| subject | predicate | object | status | validity | confidence | source | derivation | conflicts with |",
    );
    expect(markdown).toMatch(/\| Alice \| ancestor_of \| Dave \| derived \| derived \| .* \| — \|\n/);
    expect(markdown).toMatch(/\| Alice \| parent_of \| Bob \| asserted \| asserted \|/);
    const mermaid = exportSession(record, "mermaid", engine.sections);
    expect(mermaid).toMatch(/==>\|"ancestor_of"\|/);
    expect(mermaid).toMatch(/-->\|"parent_of"\|/);
    const relations = JSON.parse(exportSession(record, "json", engine.sections)).knowledgeGraph.relations as Array<{
      subject: string;
      predicate: string;
      object: string;
      status: string;
      conflictsWith: unknown[];
    }>;
    expect(relations).toHaveLength(15);
    expect(
      relations.find(
        (relation) =>
          relation.subject === "Alice" && relation.predicate === "ancestor_of" && relation.object === "Dave",
      ),
    ).toMatchObject({ status: "derived", conflictsWith: [] });
  });

  it("returns a one-step plan with its prompt for a single reasoning type in detailedPlanWithPrompts", async () => {
    const { execute, model } = await setup(deductiveScript);
    const response = await execute({ ...deductiveRequest, outputRequirements: { format: "detailedPlanWithPrompts" } });
    expect(response.result?.plan?.steps).toEqual([
      {
        index: 0,
        kind: "deduce",
        purpose: deductiveRequest.goalQuery,
        status: "pending",
        toolName: null,
        toolArguments: null,
        question: null,
      },
    ]);
    expect(response.result?.promptDetails?.map((prompt) => prompt.name)).toEqual([
      "knowledge_graph_rules",
      "knowledge_graph_answer",
    ]);
    // The rules prompt handed out is the one the server itself sends for the step.
    const served = await setup(deductiveScript);
    await served.execute(deductiveRequest);
    const sent = served.model.calls.find((call) => call.schemaName === "knowledge_graph_rules");
    expect(response.result?.promptDetails?.[0]?.user).toBe(sent?.messages[0]?.content);
    expect(model.calls.map((call) => call.schemaName)).toEqual(["knowledge_graph_extraction"]);
  });
});

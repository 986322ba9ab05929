import { type ExecuteTaskResponse, executeTaskResponseSchema } from "@deliberate/contracts";
import { createTestEngine, type TestEngine } from "@deliberate/engine/testing";
import { afterEach, describe, expect, it } from "vitest";
import { findContradictions } from "./algorithms/contradictions.ts";
import { derivedStatus } from "./algorithms/epistemic-status.ts";
import { normalizeEntityName } from "./algorithms/names.ts";
import { createKnowledgeGraphModule } from "./module.ts";
import type { KnowledgeGraphOptions } from "./orchestrator/options.ts";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import { scenarioAnswer, scenarioRules, scenarioWorld } from "./testing/scenario.ts";

/**
 * The graph's truth, end to end with exact facts (a scripted model): no
 * contradiction is stored unflagged, an asserted fact beats a hypothesis,
 * every derived fact carries the weakest status of its premises, confidence
 * follows what code checked, and deduction's work follows what changed.
 */

type Script = Record<string, unknown | ((user: string) => unknown)>;

const engines: TestEngine<KnowledgeGraphRepositories>[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

async function setup(script: Script, options: Partial<KnowledgeGraphOptions> = {}) {
  const testEngine = await createTestEngine<KnowledgeGraphRepositories>(
    (call) => {
      const name = call.schemaName ?? "";
      if (!(name in script)) throw new Error(`No scripted answer for ${name}`);
      const answer = script[name];
      return typeof answer === "function"
        ? (answer as (user: string) => unknown)(call.messages.map((message) => message.content).join("\n\n"))
        : answer;
    },
    { modules: [createKnowledgeGraphModule({ stateSecret: "test secret", ...options })] },
  );
  engines.push(testEngine);
  async function execute(args: Record<string, unknown>): Promise<ExecuteTaskResponse> {
    const response = executeTaskResponseSchema.parse(await testEngine.engine.invoke("reasoning_execute_task", args));
    if (response.reasoningSessionId) await expectNoUnflaggedContradiction(testEngine, response.reasoningSessionId);
    return response;
  }
  return { ...testEngine, execute };
}

/** The stored graph never holds two contradicting facts both unflagged: every such pair is retracted or contested. */
async function expectNoUnflaggedContradiction(
  testEngine: TestEngine<KnowledgeGraphRepositories>,
  sessionId: string,
): Promise<void> {
  const repository = testEngine.store.knowledgeGraph;
  const { entities, relations } = await repository.loadGraph(sessionId);
  const { functionalPredicates } = await repository.loadReasoningState(sessionId);
  const keyOf = new Map(entities.map((entity) => [entity.id, entity.key]));
  const unflagged = relations
    .filter((relation) => relation.validity !== "retracted" && relation.conflictsWith.length === 0)
    .map((relation) => ({
      subject: keyOf.get(relation.subjectId) as string,
      predicate: relation.predicate,
      object: keyOf.get(relation.objectId) as string,
    }));
  expect(findContradictions(unflagged, new Set(functionalPredicates))).toEqual([]);
}

const answer = (overrides: Record<string, unknown> = {}) => ({
  reasoning: ["From the graph."],
  answer: "An answer.",
  answerKey: "answer",
  confidence: 1,
  supportingFacts: [],
  ...overrides,
});

/** Dave, who does not live in Paris (asserted), and where the cities are. */
const daveWorld = {
  entities: [
    { name: "Dave", type: "person", observations: [] },
    { name: "Carol", type: "person", observations: [] },
    { name: "Paris", type: "place", observations: [] },
    { name: "Lyon", type: "place", observations: [] },
    { name: "France", type: "place", observations: [] },
  ],
  relations: [
    { subject: "Dave", predicate: "not_lives_in", object: "Paris", confidence: 1 },
    { subject: "Carol", predicate: "lives_in", object: "Paris", confidence: 1 },
    { subject: "Paris", predicate: "located_in", object: "France", confidence: 1 },
    { subject: "Lyon", predicate: "located_in", object: "France", confidence: 1 },
  ],
};

const daveHypotheses = {
  observations: [{ description: "Where Dave lives is unknown", entities: ["Dave", "Paris"] }],
  hypotheses: [
    {
      name: "Dave lives in Paris",
      explanation: "Like Carol.",
      additions: [
        { subject: "Dave", subjectType: "person", predicate: "lives_in", object: "Paris", objectType: "place" },
      ],
    },
    {
      name: "Dave lives in Lyon",
      explanation: "He moved.",
      additions: [
        { subject: "Dave", subjectType: "person", predicate: "lives_in", object: "Lyon", objectType: "place" },
      ],
    },
  ],
};

const livesInCountry = {
  rules: [
    {
      name: "living in a city is living in its country",
      statement: "Whoever lives in a city lives in the country it is in.",
      conditions: [
        { subject: "?x", predicate: "lives_in", object: "?c" },
        { subject: "?c", predicate: "located_in", object: "?k" },
      ],
      different: [],
      conclusions: [{ subject: "?x", predicate: "lives_in", object: "?k" }],
    },
  ],
  query: { kind: "triple", subject: "Dave", predicate: "lives_in", object: "France" },
};

function extraction(seed: unknown, later: unknown = { entities: [], relations: [] }) {
  return (user: string) => (user.includes("Source: goal and context") ? seed : later);
}

describe("a consistent graph", () => {
  it("refuses the hypothesis that contradicts an asserted fact, selects the consistent one, and names the conflict", async () => {
    const { execute, store } = await setup({
      knowledge_graph_extraction: extraction(daveWorld),
      knowledge_graph_hypotheses: daveHypotheses,
      knowledge_graph_answer: answer(),
    });
    const response = await execute({ taskId: "t1", reasoningType: "abductive", goalQuery: "Where does Dave live?" });
    const hypotheses = response.result?.reasoningTrace?.hypotheses ?? [];
    const paris = hypotheses.find((item) => item.name === "Dave lives in Paris");
    // Before: coverage 1 and simplicity 1 outweighed consistency 0 (0.5 + 0.2 = 0.7 against 0.5). Now it is refused in code.
    expect(paris).toMatchObject({
      coverage: 1,
      consistency: 0,
      score: 0,
      selected: false,
      refusedBy: [{ subject: "Dave", predicate: "not_lives_in", object: "Paris" }],
    });
    expect(hypotheses.find((item) => item.name === "Dave lives in Lyon")).toMatchObject({ selected: true });
    expect(response.notices.map((notice) => notice.message)).toContain(
      "Hypothesis 'Dave lives in Paris' was refused: it contradicts 'Dave not_lives_in Paris' (asserted).",
    );
    const graph = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    const byPredicate = graph.relations.filter(
      (relation) => relation.predicate === "lives_in" && relation.provenance.kind === "abduction",
    );
    expect(byPredicate).toHaveLength(1);
    expect(byPredicate[0]).toMatchObject({ validity: "hypothesized", status: "hypothetical", conflictsWith: [] });
  });

  it("keeps both sides of a contradiction in the same source flagged, believes neither, and never counts them as support", async () => {
    const world = {
      entities: [
        { name: "Dave", type: "person", observations: [] },
        { name: "Paris", type: "place", observations: [] },
        { name: "Lyon", type: "place", observations: [] },
      ],
      relations: [
        { subject: "Dave", predicate: "lives_in", object: "Paris", confidence: 1 },
        { subject: "Dave", predicate: "not_lives_in", object: "Paris", confidence: 1 },
        { subject: "Dave", predicate: "born_in", object: "Paris", confidence: 1 },
        { subject: "Dave", predicate: "born_in", object: "Lyon", confidence: 1 },
      ],
    };
    const { execute, store } = await setup({
      knowledge_graph_extraction: extraction(world),
      knowledge_graph_rules: {
        rules: livesInCountry.rules,
        query: { kind: "triple", subject: "Dave", predicate: "lives_in", object: "Paris" },
      },
      knowledge_graph_answer: answer({
        supportingFacts: [
          { subject: "Dave", predicate: "lives_in", object: "Paris" },
          { subject: "Dave", predicate: "born_in", object: "Lyon" },
        ],
      }),
    });
    const response = await execute({
      taskId: "t1",
      reasoningType: "deductive",
      goalQuery: "Does Dave live in Paris?",
      contextData: { functionalPredicates: ["Born in"] },
    });
    const graph = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    expect(graph.relations).toHaveLength(4);
    for (const relation of graph.relations) {
      expect(relation.validity).toBe("asserted");
      expect(relation.conflictsWith).toHaveLength(1);
    }
    expect(
      (await store.knowledgeGraph.loadReasoningState(response.reasoningSessionId as string)).functionalPredicates,
    ).toEqual(["born_in"]);
    const confidence = response.result?.reasoningTrace?.confidence;
    expect(confidence?.supportingFacts).toEqual([]);
    expect(confidence?.contradictedFacts).toHaveLength(2);
    expect(response.result?.reasoningTrace?.steps.find((step) => step.kind === "deduce")?.summary).toContain(
      "does not follow",
    );
    expect(
      response.notices.filter((notice) => notice.message.startsWith("Contradiction:")).length,
    ).toBeGreaterThanOrEqual(2);
  });

  it("marks a deduction from a hypothesis as derived_from_hypothesis, says so in the answer, and upgrades it when the hypothesis is confirmed", async () => {
    const { execute, store } = await setup({
      knowledge_graph_extraction: (user: string) =>
        user.includes("Source: goal and context")
          ? daveWorld
          : user.includes("Dave lives in Lyon, confirmed")
            ? { entities: [], relations: [{ subject: "Dave", predicate: "lives_in", object: "Lyon", confidence: 1 }] }
            : { entities: [], relations: [] },
      knowledge_graph_hypotheses: daveHypotheses,
      knowledge_graph_rules: livesInCountry,
      knowledge_graph_answer: answer({
        supportingFacts: [{ subject: "Dave", predicate: "lives_in", object: "France" }],
      }),
    });
    const first = await execute({ taskId: "t1", reasoningType: "abductive", goalQuery: "Where does Dave live?" });
    const sessionId = first.reasoningSessionId as string;
    // Continued by its signed state (the id alone continues only a session bound to its caller).
    const second = await execute({
      taskId: "t2",
      reasoningType: "deductive",
      goalQuery: "Does Dave live in France?",
      sessionState: first.updatedSessionState,
    });
    const deduce = second.result?.reasoningTrace?.steps.find((step) => step.kind === "deduce");
    expect(deduce?.summary).toContain(
      "Query Dave lives_in France: holds (derived_from_hypothesis: a derivation from a hypothesis, not a proof)",
    );
    expect(second.result?.reasoningTrace?.confidence).toMatchObject({
      restsOn: "derived_from_hypothesis",
      basis: { kind: "derived_from_hypothesis", score: 0.5 },
    });
    await expectStatusesRight(store.knowledgeGraph, sessionId, {
      "dave lives_in france": "derived_from_hypothesis",
      "carol lives_in france": "derived",
    });

    // The host confirms the hypothesis: the conclusion becomes a proof from asserted facts.
    const third = await execute({
      taskId: "t3",
      reasoningType: "deductive",
      goalQuery: "Does Dave live in France?",
      sessionState: second.updatedSessionState,
      contextData: { domainKnowledge: "Dave lives in Lyon, confirmed." },
    });
    await expectStatusesRight(store.knowledgeGraph, sessionId, {
      "dave lives_in lyon": "asserted",
      "dave lives_in france": "derived",
    });
    expect(third.result?.reasoningTrace?.confidence).toMatchObject({
      restsOn: "derived",
      basis: { kind: "proof", score: 1 },
    });
    expect(third.result?.confidenceScore as number).toBeGreaterThan(second.result?.confidenceScore as number);
  });

  it("applies the rule language's inequality: nobody is derived to be their own sibling", async () => {
    const family = {
      entities: [],
      relations: ["Bob", "Carol", "Eve"].map((child) => ({
        subject: "Alice",
        predicate: "parent_of",
        object: child,
        confidence: 1,
      })),
    };
    const sibling = (different: unknown[]) => ({
      rules: [
        {
          name: "siblings share a parent",
          statement: "Two different children of one parent are siblings.",
          conditions: [
            { subject: "?p", predicate: "parent_of", object: "?x" },
            { subject: "?p", predicate: "parent_of", object: "?y" },
          ],
          different,
          conclusions: [{ subject: "?x", predicate: "sibling_of", object: "?y" }],
        },
      ],
      query: { kind: "none" },
    });
    const { execute, store } = await setup({
      knowledge_graph_extraction: extraction(family),
      knowledge_graph_rules: sibling([{ left: "?x", right: "?y" }]),
      knowledge_graph_answer: answer(),
    });
    const response = await execute({ taskId: "t1", reasoningType: "deductive", goalQuery: "Who are Bob's siblings?" });
    const derived = (response.result?.reasoningTrace?.derivations ?? []).map(
      (item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`,
    );
    expect(new Set(derived)).toEqual(
      new Set([
        "Bob sibling_of Carol",
        "Carol sibling_of Bob",
        "Bob sibling_of Eve",
        "Eve sibling_of Bob",
        "Carol sibling_of Eve",
        "Eve sibling_of Carol",
      ]),
    );
    const stored = await store.knowledgeGraph.loadGraph(response.reasoningSessionId as string);
    for (const relation of stored.relations) expect(relation.subjectId).not.toBe(relation.objectId);

    // An inequality over a variable the conditions do not bind is refused with a notice, the rule not applied.
    const broken = await setup({
      knowledge_graph_extraction: extraction(family),
      knowledge_graph_rules: sibling([{ left: "?x", right: "?q" }]),
      knowledge_graph_answer: answer(),
    });
    const refused = await broken.execute({
      taskId: "t1",
      reasoningType: "deductive",
      goalQuery: "Who are Bob's siblings?",
    });
    expect(refused.notices.map((notice) => notice.message)).toContain(
      "Rule 'siblings share a parent' was not applied: rule 'siblings share a parent': the inequality ?x != ?q uses ?q, which does not occur in the conditions.",
    );
    expect(refused.result?.reasoningTrace?.derivations).toEqual([]);
  });
});

/** Every stored deduced relation has the weakest status of its premises; `expected` pins some by "subject predicate object" keys. */
async function expectStatusesRight(
  repository: KnowledgeGraphRepositories["knowledgeGraph"],
  sessionId: string,
  expected: Record<string, string>,
): Promise<void> {
  const { entities, relations } = await repository.loadGraph(sessionId);
  const keyOf = new Map(entities.map((entity) => [entity.id, entity.key]));
  const byKey = new Map(
    relations.map((relation) => [
      `${keyOf.get(relation.subjectId)} ${relation.predicate} ${keyOf.get(relation.objectId)}`,
      relation,
    ]),
  );
  for (const relation of relations) {
    if (relation.derivation === null || relation.validity === "retracted") continue;
    const premises = relation.derivation.premises.map((premise) =>
      byKey.get(`${normalizeEntityName(premise.subject)} ${premise.predicate} ${normalizeEntityName(premise.object)}`),
    );
    expect(premises.every((premise) => premise !== undefined)).toBe(true);
    expect(relation.status).toBe(derivedStatus(premises.map((premise) => premise?.status ?? "asserted")));
  }
  for (const [key, status] of Object.entries(expected)) expect(byKey.get(key)?.status, key).toBe(status);
}

describe("confidence from evidence the code checked", () => {
  const scores: Record<string, number> = {};
  afterEach(() => {
    if (process.env["PRINT_CONFIDENCE"]) console.info(JSON.stringify(scores));
  });

  it("orders a proof above a consistent hypothesis above a contradicted claim; made-up citations lower it", async () => {
    // The same model output for the proof and the abductive guess: it cites one asserted fact at 0.9.
    const same = {
      ...scenarioAnswer,
      confidence: 0.9,
      supportingFacts: [{ subject: "Alice", predicate: "parent_of", object: "Bob" }],
    };
    const world = {
      knowledge_graph_extraction: extraction(scenarioWorld),
      knowledge_graph_rules: scenarioRules,
      knowledge_graph_answer: same,
    };
    const proof = await (await setup(world)).execute({
      taskId: "p",
      reasoningType: "deductive",
      goalQuery: "Is Alice an ancestor of Dave?",
    });
    const hypotheses = {
      observations: [{ description: "Where Dave lives is unknown", entities: ["Dave"] }],
      hypotheses: [
        {
          name: "Dave lives in Paris too",
          explanation: "Like his family.",
          additions: [
            { subject: "Dave", subjectType: "person", predicate: "lives_in", object: "Paris", objectType: "place" },
          ],
        },
        {
          name: "Dave moved to Lyon",
          explanation: "Work.",
          additions: [
            { subject: "Dave", subjectType: "person", predicate: "lives_in", object: "Lyon", objectType: "place" },
          ],
        },
      ],
    };
    const guess = await (await setup({ ...world, knowledge_graph_hypotheses: hypotheses })).execute({
      taskId: "g",
      reasoningType: "abductive",
      goalQuery: "Where does Dave live?",
    });
    scores["proof"] = proof.result?.confidenceScore as number;
    scores["abductive guess, same output"] = guess.result?.confidenceScore as number;
    expect(proof.result?.reasoningTrace?.confidence?.basis?.kind).toBe("proof");
    expect(guess.result?.reasoningTrace?.confidence?.basis?.kind).toBe("abduction");
    expect(scores["proof"]).toBeGreaterThan(scores["abductive guess, same output"] as number);

    // The model says 1.0 while every fact it cites is contradicted (a rival value of a functional predicate, and a negation).
    const contradictedWorld = {
      entities: [],
      relations: [
        { subject: "Dave", predicate: "lives_in", object: "Lyon", confidence: 1 },
        { subject: "Dave", predicate: "not_born_in", object: "Lyon", confidence: 1 },
      ],
    };
    const claim = answer({
      supportingFacts: [
        { subject: "Dave", predicate: "lives_in", object: "Paris" },
        { subject: "Dave", predicate: "born_in", object: "Lyon" },
      ],
    });
    const contradicted = await (
      await setup({
        knowledge_graph_extraction: extraction({
          ...contradictedWorld,
          entities: [{ name: "Paris", type: "place", observations: [] }],
        }),
        knowledge_graph_rules: livesInCountry,
        knowledge_graph_answer: claim,
      })
    ).execute({
      taskId: "c",
      reasoningType: "deductive",
      goalQuery: "Where does Dave live?",
      contextData: { functionalPredicates: ["lives_in"] },
    });
    scores["model 1.0, every cited fact contradicted"] = contradicted.result?.confidenceScore as number;
    expect(contradicted.result?.reasoningTrace?.confidence?.contradictedFacts).toHaveLength(2);
    expect(contradicted.result?.reasoningTrace?.confidence?.supportingFacts).toEqual([]);
    expect(scores["model 1.0, every cited fact contradicted"]).toBeLessThan(
      scores["abductive guess, same output"] as number,
    );
    expect(scores["model 1.0, every cited fact contradicted"]).toBeLessThan(0.5);

    // Five made-up citations (facts between known entities the graph does not have) against none.
    const made = ["Bob", "Carol", "Dave", "Paris", "Picnic"].map((object) => ({
      subject: "Alice",
      predicate: "knows",
      object,
    }));
    const fabricated = await (
      await setup({ ...world, knowledge_graph_answer: answer({ supportingFacts: made }) })
    ).execute({ taskId: "f", reasoningType: "deductive", goalQuery: "Is Alice an ancestor of Dave?" });
    const none = await (await setup({ ...world, knowledge_graph_answer: answer() })).execute({
      taskId: "n",
      reasoningType: "deductive",
      goalQuery: "Is Alice an ancestor of Dave?",
    });
    scores["model 1.0, five made-up citations"] = fabricated.result?.confidenceScore as number;
    scores["model 1.0, no citations, proof"] = none.result?.confidenceScore as number;
    expect(fabricated.result?.reasoningTrace?.confidence?.unsupportedFacts).toHaveLength(5);
    // A proof the answer does not rest on (it cites nothing) does not vouch for it: the basis stays neutral.
    expect(none.result?.reasoningTrace?.confidence).toMatchObject({ basis: null, components: { basis: 0.5 } });
    expect(scores["model 1.0, five made-up citations"]).toBeLessThan(
      scores["model 1.0, no citations, proof"] as number,
    );
    expect(scores["model 1.0, five made-up citations"]).toBeLessThan(0.5);
    for (const score of Object.values(scores)) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });
});

describe("deduction at scale: work follows what changed", () => {
  const chainRules = {
    rules: [
      {
        name: "a parent is an ancestor",
        statement: "A parent is an ancestor.",
        conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }],
        different: [],
        conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }],
      },
      {
        name: "ancestry is transitive",
        statement: "An ancestor of an ancestor is an ancestor.",
        conditions: [
          { subject: "?x", predicate: "ancestor_of", object: "?y" },
          { subject: "?y", predicate: "ancestor_of", object: "?z" },
        ],
        different: [],
        conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }],
      },
    ],
    query: { kind: "triple", subject: "N0", predicate: "ancestor_of", object: "N200" },
  };
  const noRules = {
    rules: [
      {
        name: "nothing yet",
        statement: "-",
        conditions: [{ subject: "?x", predicate: "unused", object: "?y" }],
        different: [],
        conclusions: [{ subject: "?x", predicate: "unused_too", object: "?y" }],
      },
    ],
    query: { kind: "none" },
  };
  const links = (from: number, to: number) => ({
    entities: [],
    relations: Array.from({ length: to - from }, (_, index) => ({
      subject: `N${from + index}`,
      predicate: "parent_of",
      object: `N${from + index + 1}`,
      confidence: 1,
    })),
  });

  it("closes a 200-link chain in one call, and each follow-up call does the same small work", {
    timeout: 120_000,
  }, async () => {
    let rules: unknown = noRules;
    const { execute, store } = await setup({
      knowledge_graph_extraction: (user: string) => {
        const range = /links (\d+)-(\d+)/.exec(user);
        return range ? links(Number(range[1]), Number(range[2])) : { entities: [], relations: [] };
      },
      knowledge_graph_rules: () => rules,
      knowledge_graph_answer: answer({ confidence: 0.9 }),
    });
    // The chain arrives 40 links per call (one extraction's bound), with no applicable rule yet.
    // Each call continues the session by the signed state the last one returned.
    let sessionId: string | null = null;
    let sessionState: unknown = null;
    for (let from = 0; from < 200; from += 40) {
      const seeded = await execute({
        taskId: `seed-${from}`,
        reasoningType: "deductive",
        goalQuery: "Link the chain",
        contextData: { domainKnowledge: `links ${from}-${from + 40}` },
        ...(sessionState ? { sessionState } : {}),
      });
      sessionId = seeded.reasoningSessionId as string;
      sessionState = seeded.updatedSessionState;
    }
    rules = chainRules;
    const timings: number[] = [];
    let started = performance.now();
    const closing = await execute({
      taskId: "close",
      reasoningType: "deductive",
      goalQuery: "Is N0 an ancestor of N200?",
      sessionState,
    });
    sessionState = closing.updatedSessionState;
    timings.push(Math.round(performance.now() - started));
    expect(closing.status).toBe("completed");
    expect(closing.result?.reasoningTrace?.budget.chaining).toMatchObject({
      factsDerived: (200 * 201) / 2,
      incremental: false,
    });
    expect(closing.result?.reasoningTrace?.steps.find((step) => step.kind === "deduce")?.summary).toContain(
      "Query N0 ancestor_of N200: holds (derived",
    );
    expect((await store.knowledgeGraph.countGraph(sessionId as string)).relations).toBe(200 + (200 * 201) / 2);

    // Five follow-ups, each adding one link at the end of the chain.
    const work: Array<{ factsExamined: number; ruleFirings: number; factsDerived: number; incremental: boolean }> = [];
    for (let step = 0; step < 5; step += 1) {
      started = performance.now();
      const follow = await execute({
        taskId: `follow-${step}`,
        reasoningType: "deductive",
        goalQuery: "Is N0 an ancestor of the newest?",
        sessionState,
        contextData: { domainKnowledge: `links ${200 + step}-${201 + step}` },
      });
      sessionState = follow.updatedSessionState;
      timings.push(Math.round(performance.now() - started));
      expect(follow.status).toBe("completed");
      const chaining = follow.result?.reasoningTrace?.budget.chaining;
      expect(chaining?.incremental).toBe(true);
      expect(chaining?.factsDerived).toBe(201 + step);
      work.push(chaining as (typeof work)[number]);
    }
    const closingWork = closing.result?.reasoningTrace?.budget.chaining;
    if (process.env["PRINT_CHAINING_WORK"])
      console.info(JSON.stringify({ closing: closingWork, followUps: work, milliseconds: timings }));
    const [firstFollow, fifthFollow] = [work[0], work[4]] as [(typeof work)[number], (typeof work)[number]];
    // The 5th follow-up costs about what the 1st did (its new facts join a chain 4 links longer) ...
    expect(fifthFollow.factsExamined).toBeLessThan(1.1 * firstFollow.factsExamined);
    expect(fifthFollow.ruleFirings).toBeLessThan(1.1 * firstFollow.ruleFirings);
    // ... and far less than closing the whole chain again.
    expect(firstFollow.factsExamined * 20).toBeLessThan(closingWork?.factsExamined as number);
  });
});

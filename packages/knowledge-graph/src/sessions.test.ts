import { DeliberateError, type ExecuteTaskResponse, executeTaskResponseSchema } from "@deliberate/contracts";
import { createEngine, createSequentialIds } from "@deliberate/engine";
import { createTestClock, errorOf } from "@deliberate/engine/testing";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import type { Store } from "@deliberate/store";
import { openTestStore, testDialects } from "@deliberate/store/testing";
import type { Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createKnowledgeGraphModule } from "./module.ts";
import type { KnowledgeGraphOptions } from "./orchestrator/options.ts";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import { signSessionState } from "./session-state.ts";
import { answerFor, scenarioDomainKnowledge } from "./testing/scenario.ts";

type Answer = (schemaName: string, prompt: string) => unknown;

const request = {
  taskId: "t-1",
  reasoningType: "deductive",
  goalQuery: "Is Alice an ancestor of Dave?",
  contextData: { domainKnowledge: scenarioDomainKnowledge },
};

describe.each(testDialects)("knowledge-graph sessions on %s", (dialect) => {
  const stores: Store<KnowledgeGraphRepositories>[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  /** An engine on this dialect whose model answers with `answer` (the scenario's by default); calls name their caller. */
  async function setup(options: Partial<KnowledgeGraphOptions> = {}, answer: Answer = answerFor) {
    const modules = [createKnowledgeGraphModule({ stateSecret: "a test secret of 32 characters", ...options })];
    const store = await openTestStore<KnowledgeGraphRepositories>(dialect, { modules });
    stores.push(store);
    const model = createScriptedModel((call) =>
      answer(call.schemaName ?? "", call.messages.map((message) => message.content).join("\n\n")),
    );
    const clock = createTestClock();
    const engine = createEngine({
      store,
      models: createModelRouterFromModel(model),
      clock,
      ids: createSequentialIds(),
      modules,
    });
    const execute = async (args: Record<string, unknown>, caller: string | null): Promise<ExecuteTaskResponse> =>
      executeTaskResponseSchema.parse(
        await engine.invoke("reasoning_execute_task", args, caller === null ? {} : { caller }),
      );
    const end = (args: Record<string, unknown>, caller: string | null) =>
      engine.invoke("reasoning_end_session", args, caller === null ? {} : { caller });
    const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const count = async (table: string) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const snapshot = async () => ({
      relations: await count("knowledge_graph_relations"),
      revision: (await store.knowledgeGraph.findSession("s-a"))?.revision,
    });
    return { engine, store, model, clock, execute, end, count, snapshot };
  }

  describe("continuing and ending need the signed state or the caller the session is bound to", () => {
    it("lets the creating caller continue and end by id, and refuses another caller, an anonymous one and a forged state, writing nothing", async () => {
      const { execute, end, snapshot } = await setup();
      const first = await execute({ ...request, reasoningSessionId: "s-a" }, "caller-a");
      expect(first.status).toBe("completed");
      // The session stays open for the host's next call until it idles out (30 minutes by default).
      expect(first.sessionExpiresAt).toBe("2026-11-22T10:30:00.000Z");
      expect((await execute({ ...request, taskId: "t-2", reasoningSessionId: "s-a" }, "caller-a")).status).toBe(
        "completed",
      );
      const before = await snapshot();

      for (const caller of ["caller-b", null]) {
        const refused = await errorOf(execute({ ...request, taskId: "t-3", reasoningSessionId: "s-a" }, caller));
        expect(refused.code).toBe("CONFLICT");
        expect(refused.issues).toEqual([{ field: "sessionState", message: "required to continue session s-a" }]);
        const notEnded = await errorOf(end({ reasoningSessionId: "s-a" }, caller));
        expect(notEnded.code).toBe("CONFLICT");
        expect(notEnded.message).toMatch(/cannot end by its id alone/);
      }
      // A tampered state, a state signed by another server, and a state of another session under this id.
      const token = first.updatedSessionState?.token ?? "";
      const [version, body, signature] = token.split(".");
      const tampered = `${version}.${body}.${signature?.startsWith("A") ? "B" : "A"}${signature?.slice(1)}`;
      const foreign = signSessionState({ sessionId: "s-a", revision: 2 }, "another server's secret").token;
      for (const sessionState of [{ token: tampered }, foreign, "not a state"]) {
        const refused = await errorOf(execute({ ...request, taskId: "t-4", sessionState }, "caller-a"));
        expect(refused.code).toBe("INVALID_INPUT");
        expect(refused.issues[0]?.field).toBe("sessionState");
      }
      expect(await snapshot()).toEqual(before);
    });

    it("lets any caller continue and end with the signed state, which is the session's capability", async () => {
      const { execute, end } = await setup();
      const first = await execute({ ...request, reasoningSessionId: "s-a" }, "caller-a");
      const continued = await execute(
        { ...request, taskId: "t-2", sessionState: first.updatedSessionState },
        "caller-b",
      );
      expect(continued.status).toBe("completed");
      expect(continued.reasoningSessionId).toBe("s-a");
      // A stale state still ends the session (it was issued for it), and ending is idempotent.
      expect(await end({ sessionState: first.updatedSessionState }, null)).toMatchObject({
        reasoningSessionId: "s-a",
        status: "ended",
        alreadyClosed: false,
      });
    });

    it("binds nothing for an anonymous creator: only its state continues it, even for anonymous callers", async () => {
      const { execute, store } = await setup();
      const first = await execute({ ...request, reasoningSessionId: "s-anon" }, null);
      expect(await store.knowledgeGraphOwners.ownerOf("s-anon")).toBeNull();
      expect((await errorOf(execute({ ...request, taskId: "t-2", reasoningSessionId: "s-anon" }, null))).code).toBe(
        "CONFLICT",
      );
      expect(
        (
          await execute(
            { ...request, taskId: "t-2", reasoningSessionId: "s-anon", sessionState: first.updatedSessionState },
            null,
          )
        ).status,
      ).toBe("completed");
    });

    it("refuses a state of one session sent with another session's id without naming either session", async () => {
      const { execute } = await setup();
      const mine = await execute({ ...request, reasoningSessionId: "s-mine" }, "caller-a");
      await execute({ ...request, reasoningSessionId: "s-theirs" }, "caller-b");
      const refused = await errorOf(
        execute(
          { ...request, taskId: "t-2", reasoningSessionId: "s-theirs", sessionState: mine.updatedSessionState },
          "caller-a",
        ),
      );
      expect(refused.code).toBe("INVALID_INPUT");
      expect(JSON.stringify(refused.toJSON())).not.toMatch(/s-mine|s-theirs/);
    });

    it("a host-chosen id that another caller's session holds cannot be used to start or reach a session", async () => {
      const { execute, count } = await setup({ maxActiveSessions: 1 });
      await execute({ ...request, reasoningSessionId: "shared-name" }, "caller-a");
      const refused = await errorOf(execute({ ...request, reasoningSessionId: "shared-name" }, "caller-b"));
      expect(refused.code).toBe("CONFLICT");
      // The cap refusal names no session (it may be another caller's).
      const capped = await errorOf(execute({ ...request, reasoningSessionId: "other" }, "caller-b"));
      expect(capped.code).toBe("LIMIT_EXCEEDED");
      expect(JSON.stringify(capped.toJSON())).not.toMatch(/shared-name/);
      expect(await count("knowledge_graph_sessions")).toBe(1);
    });
  });

  describe("model and provider failures are the task's status failed", () => {
    const failing =
      (
        code: "PROVIDER_UNAVAILABLE" | "MODEL_OUTPUT_INVALID" | "PROVIDER_TIMEOUT",
        when: (schemaName: string) => boolean,
      ): Answer =>
      (schemaName, prompt) => {
        if (when(schemaName))
          throw new DeliberateError({
            code,
            message: `scripted ${code}`,
            hint: "try later",
            retryable: code !== "MODEL_OUTPUT_INVALID",
          });
        return answerFor(schemaName, prompt);
      };

    it("a provider failure on a new session: status failed with a typed, retryable error; nothing kept; the invocation row records it", async () => {
      const { execute, count, store } = await setup(
        {},
        failing("PROVIDER_UNAVAILABLE", () => true),
      );
      const response = await execute({ ...request, reasoningSessionId: "s-new" }, "caller-a");
      expect(response).toMatchObject({
        status: "failed",
        reasoningSessionId: null,
        result: null,
        updatedSessionState: null,
        sessionExpiresAt: null,
        error: { code: 5023, reason: "PROVIDER_UNAVAILABLE", retryable: true, details: "try later" },
      });
      expect(response.error?.message).toMatch(/scripted PROVIDER_UNAVAILABLE/);
      expect(await count("knowledge_graph_sessions")).toBe(0);
      const rows = await (store.db as unknown as Kysely<Record<string, Record<string, unknown>>>)
        .selectFrom("invocations")
        .select(["success", "error_code"])
        .execute();
      expect(rows.map((row) => [Number(row["success"]), row["error_code"]])).toEqual([[0, "PROVIDER_UNAVAILABLE"]]);
    });

    it("a model failure on an existing session keeps its graph and revision and returns its state, so the call can be retried", async () => {
      let fail = false;
      const { execute, snapshot } = await setup({}, (schemaName, prompt) => {
        if (fail && schemaName === "knowledge_graph_answer")
          throw new DeliberateError({ code: "MODEL_OUTPUT_INVALID", message: "no valid answer after a repair round" });
        return answerFor(schemaName, prompt);
      });
      const first = await execute({ ...request, reasoningSessionId: "s-a" }, "caller-a");
      const before = await snapshot();
      fail = true;
      const failed = await execute({ ...request, taskId: "t-2", sessionState: first.updatedSessionState }, "caller-b");
      expect(failed).toMatchObject({
        status: "failed",
        reasoningSessionId: "s-a",
        error: { code: 5020, reason: "MODEL_OUTPUT_INVALID", retryable: false },
      });
      expect(failed.updatedSessionState).toEqual(first.updatedSessionState);
      expect(failed.sessionExpiresAt).toBe(first.sessionExpiresAt);
      expect(await snapshot()).toEqual(before);
      fail = false;
      expect(
        (await execute({ ...request, taskId: "t-3", sessionState: failed.updatedSessionState }, "caller-b")).status,
      ).toBe("completed");
    });

    it("a call the caller cancelled stays an error of the call, whatever the provider made of the abort", async () => {
      const controller = new AbortController();
      const { engine } = await setup({}, () => {
        controller.abort();
        throw new DeliberateError({ code: "PROVIDER_TIMEOUT", message: "aborted while waiting", retryable: true });
      });
      const refused = await errorOf(
        engine.invoke("reasoning_execute_task", request, { caller: "caller-a", signal: controller.signal }),
      );
      expect(refused.code).not.toBe("INVALID_INPUT");
    });

    it("input errors stay errors of the call", async () => {
      const { execute } = await setup(
        {},
        failing("PROVIDER_TIMEOUT", () => true),
      );
      const refused = await errorOf(execute({ ...request, reasoningType: "guessing" }, "caller-a"));
      expect(refused.code).toBe("INVALID_INPUT");
    });
  });

  describe("facts and rules as data", () => {
    const facts = [
      { subject: "Alice", predicate: "parent_of", object: "Bob" },
      { subject: "Bob", predicate: "parent_of", object: "Carol" },
      { subject: "Carol", predicate: "parent_of", object: "Dave" },
    ];
    const rules = [
      {
        name: "parent implies ancestor",
        conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }],
        conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }],
      },
      {
        name: "ancestry is transitive",
        conditions: [
          { subject: "?x", predicate: "ancestor_of", object: "?y" },
          { subject: "?y", predicate: "ancestor_of", object: "?z" },
        ],
        conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }],
      },
    ];

    const siblingRule = {
      name: "same parent means siblings",
      conditions: [
        { subject: "?p", predicate: "parent_of", object: "?x" },
        { subject: "?p", predicate: "parent_of", object: "?y" },
      ],
      conclusions: [{ subject: "?x", predicate: "sibling_of", object: "?y" }],
    };
    /** A model whose own rule matches nothing here, so only the host's rules derive. */
    const hostRulesOnly: Answer = (schemaName, prompt) =>
      schemaName === "knowledge_graph_rules"
        ? {
            rules: [
              {
                name: "unused",
                statement: "Unused.",
                conditions: [{ subject: "?x", predicate: "never_given", object: "?y" }],
                different: [],
                conclusions: [{ subject: "?y", predicate: "never_given", object: "?x" }],
              },
            ],
            query: { kind: "none" },
          }
        : schemaName === "knowledge_graph_answer"
          ? {
              reasoning: ["From the facts given."],
              answer: "As the facts say.",
              answerKey: "facts",
              confidence: 0.8,
              supportingFacts: [],
            }
          : answerFor(schemaName, prompt);
    const tripleText = (item: { triple: { subject: string; predicate: string; object: string } }) =>
      `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`;

    it("applies a rule's inequality: siblings are two different children of one parent, nobody their own sibling", async () => {
      const { execute } = await setup({}, hostRulesOnly);
      const children = ["Bob", "Carol", "Dan"].map((child) => ({
        subject: "Alice",
        predicate: "parent_of",
        object: child,
      }));
      const response = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Who are Bob's siblings?",
          reasoningSessionId: "s-siblings",
          contextData: { facts: children, rules: [{ ...siblingRule, different: [{ left: "?x", right: "?y" }] }] },
        },
        "caller-a",
      );
      expect(response.status, JSON.stringify(response.error)).toBe("completed");
      const derived = (response.result?.reasoningTrace?.derivations ?? [])
        .filter((item) => item.triple.predicate === "sibling_of")
        .map(tripleText);
      expect(new Set(derived)).toEqual(
        new Set([
          "Bob sibling_of Carol",
          "Carol sibling_of Bob",
          "Bob sibling_of Dan",
          "Dan sibling_of Bob",
          "Carol sibling_of Dan",
          "Dan sibling_of Carol",
        ]),
      );
    });

    it("without the inequality the same rule makes everyone their own sibling (the inequality is what prevents it)", async () => {
      const { execute } = await setup({}, hostRulesOnly);
      const response = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Who are Bob's siblings?",
          reasoningSessionId: "s-self",
          contextData: { facts: [{ subject: "Alice", predicate: "parent_of", object: "Bob" }], rules: [siblingRule] },
        },
        "caller-a",
      );
      expect((response.result?.reasoningTrace?.derivations ?? []).map(tripleText)).toContain("Bob sibling_of Bob");
    });

    it("the host's facts go through the contradiction check as asserted: p against not_p and two values of a functional predicate are contested and reported", async () => {
      const { execute, store } = await setup({}, hostRulesOnly);
      const given = [
        { subject: "Alice", predicate: "likes", object: "Bob" },
        { subject: "Alice", predicate: "not_likes", object: "Bob" },
        { subject: "Alice", predicate: "born_in", object: "Paris" },
        { subject: "Alice", predicate: "born_in", object: "Lyon" },
        { subject: "Bob", predicate: "born_in", object: "Paris" },
      ];
      const response = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Where was Alice born?",
          reasoningSessionId: "s-conflict",
          contextData: { facts: given, functionalPredicates: ["born_in"] },
        },
        "caller-a",
      );
      expect(response.status, JSON.stringify(response.error)).toBe("completed");
      const contradictions = response.notices.filter((notice) => notice.message.startsWith("Contradiction:"));
      expect(contradictions).toHaveLength(2);
      expect(
        contradictions.every(
          (notice) => notice.message.includes("(asserted)") && notice.message.includes("is contested"),
        ),
      ).toBe(true);
      const { entities, relations } = await store.knowledgeGraph.loadGraph("s-conflict");
      const name = new Map(entities.map((entity) => [entity.id, entity.name]));
      const flagged = relations
        .filter((relation) => relation.conflictsWith.length > 0)
        .map((relation) => `${name.get(relation.subjectId)} ${relation.predicate} ${name.get(relation.objectId)}`);
      expect(new Set(flagged)).toEqual(
        new Set(["Alice likes Bob", "Alice not_likes Bob", "Alice born_in Paris", "Alice born_in Lyon"]),
      );
      expect(
        relations.every((relation) => relation.status === "asserted" && relation.provenance.kind === "host_data"),
      ).toBe(true);
    });

    it("a host fact wins over a hypothesis it contradicts, and the host's rules never build on hypotheses", async () => {
      const { execute, store } = await setup({}, hostRulesOnly);
      const hypothesis = { predicate: "likes", object: "Bob" };
      const first = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Does Alice like Bob?",
          reasoningSessionId: "s-wins",
          contextData: { facts: [{ subject: "Alice", predicate: "knows", object: "Bob" }] },
        },
        "caller-a",
      );
      // A hypothesis as abduction would leave it, written straight into the session's graph.
      const { entities } = await store.knowledgeGraph.loadGraph("s-wins");
      const id = new Map(entities.map((entity) => [entity.name, entity.id]));
      const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
      const now = new Date().toISOString();
      const hypotheses = [
        { id: "r-hypothesis", position: 98, subject: "Alice", ...hypothesis },
        { id: "r-trust", position: 99, subject: "Bob", predicate: "trusts", object: "Alice" },
      ];
      for (const row of hypotheses) {
        await db
          .insertInto("knowledge_graph_relations")
          .values({
            id: row.id,
            session_id: "s-wins",
            position: row.position,
            subject_id: id.get(row.subject),
            predicate: row.predicate,
            object_id: id.get(row.object),
            confidence: 0.7,
            validity: "hypothesized",
            status: "hypothetical",
            conflicts_with: "[]",
            provenance_kind: "abduction",
            provenance_task_id: "t-0",
            provenance_step: null,
            provenance_reference: null,
            derivation: null,
            created_at: now,
            updated_at: now,
          })
          .execute();
      }
      const mutual = (predicate: string) => ({
        name: `${predicate} is mutual`,
        conditions: [{ subject: "?x", predicate, object: "?y" }],
        conclusions: [{ subject: "?y", predicate, object: "?x" }],
      });
      const contextData = {
        facts: [{ subject: "Alice", predicate: "not_likes", object: "Bob" }],
        rules: [mutual("trusts"), mutual("knows")],
      };
      const second = await execute(
        {
          taskId: "t-2",
          reasoningType: "deductive",
          goalQuery: "Does Alice like Bob?",
          sessionState: first.updatedSessionState,
          contextData,
        },
        "caller-a",
      );
      expect(second.status, JSON.stringify(second.error)).toBe("completed");
      expect(
        second.notices.some((notice) =>
          /^Contradiction: 'Alice not_likes Bob' \(asserted\) replaced the weaker, now retracted, 'Alice likes Bob' \(hypothetical\)/.test(
            notice.message,
          ),
        ),
      ).toBe(true);
      const { relations } = await store.knowledgeGraph.loadGraph("s-wins");
      const stored = relations.find((relation) => relation.id === "r-hypothesis");
      expect(stored?.validity).toBe("retracted");
      expect(stored?.conflictsWith).toEqual([{ subject: "Alice", predicate: "not_likes", object: "Bob" }]);
      // The rules ran over the asserted fact, not over the hypothesis.
      const derived = (second.result?.reasoningTrace?.derivations ?? []).map(tripleText);
      expect(derived).toContain("Bob knows Alice");
      expect(derived).not.toContain("Alice trusts Bob");
      expect(
        relations.filter((relation) => relation.predicate === "trusts" && relation.provenance.kind === "deduction"),
      ).toEqual([]);
    });

    it("stores the facts as asserted without re-extraction, applies the rules in code, and keeps the rules for later calls", async () => {
      const { execute, model, store } = await setup({ maxGraphGrowth: 20 });
      const first = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Is Alice an ancestor of Dave?",
          reasoningSessionId: "s-data",
          contextData: { facts, rules },
        },
        "caller-a",
      );
      expect(first.status).toBe("completed");
      expect(model.calls.map((call) => call.schemaName)).not.toContain("knowledge_graph_extraction");
      const { entities, relations } = await store.knowledgeGraph.loadGraph("s-data");
      const name = new Map(entities.map((entity) => [entity.id, entity.name]));
      const triple = (relation: (typeof relations)[number]) =>
        `${name.get(relation.subjectId)} ${relation.predicate} ${name.get(relation.objectId)}`;
      const asserted = relations.filter((relation) => relation.provenance.kind === "host_data");
      expect(asserted.map(triple)).toEqual(["Alice parent_of Bob", "Bob parent_of Carol", "Carol parent_of Dave"]);
      expect(
        asserted.every(
          (relation) => relation.validity === "asserted" && relation.status === "asserted" && relation.confidence === 1,
        ),
      ).toBe(true);
      const fromHostRules = relations.filter(
        (relation) => relation.provenance.step === "host data" && relation.validity === "derived",
      );
      expect(fromHostRules.every((relation) => relation.status === "derived")).toBe(true);
      expect(new Set(fromHostRules.map(triple))).toEqual(
        new Set([
          "Alice ancestor_of Bob",
          "Bob ancestor_of Carol",
          "Carol ancestor_of Dave",
          "Alice ancestor_of Carol",
          "Bob ancestor_of Dave",
          "Alice ancestor_of Dave",
        ]),
      );
      expect(first.result?.reasoningTrace?.steps.some((step) => step.kind === "hostData")).toBe(true);
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect((await store.knowledgeGraphRules.list("s-data")).sort(byName)).toEqual([...rules].sort(byName));

      // A later call's new fact is closed under the kept rules.
      const second = await execute(
        {
          taskId: "t-2",
          reasoningType: "deductive",
          goalQuery: "Is Alice an ancestor of Eve?",
          sessionState: first.updatedSessionState,
          contextData: { facts: [{ subject: "Dave", predicate: "parent_of", object: "Eve" }] },
        },
        "caller-a",
      );
      expect(second.status).toBe("completed");
      const derived = second.result?.reasoningTrace?.derivations.map(
        (item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`,
      );
      expect(derived).toEqual(expect.arrayContaining(["Dave ancestor_of Eve", "Alice ancestor_of Eve"]));
    });

    it("a rule given again under its name replaces the kept one", async () => {
      const { execute, store } = await setup();
      const first = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Is Alice an ancestor of Bob?",
          reasoningSessionId: "s-rules",
          contextData: { facts, rules: [rules[0]] },
        },
        "caller-a",
      );
      const replaced = {
        name: "parent implies ancestor",
        conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }],
        conclusions: [{ subject: "?y", predicate: "child_of", object: "?x" }],
      };
      const second = await execute(
        {
          taskId: "t-2",
          reasoningType: "deductive",
          goalQuery: "Is Bob a child of Alice?",
          sessionState: first.updatedSessionState,
          contextData: { rules: [replaced] },
        },
        "caller-a",
      );
      expect(second.status).toBe("completed");
      expect(await store.knowledgeGraphRules.list("s-rules")).toEqual([replaced]);
      const derived = second.result?.reasoningTrace?.derivations.map(
        (item) => `${item.triple.subject} ${item.triple.predicate} ${item.triple.object}`,
      );
      expect(derived).toEqual(expect.arrayContaining(["Bob child_of Alice"]));
    });

    it("does not count the host's facts against the per-call growth budget", async () => {
      const answers: Answer = (schemaName, prompt) =>
        schemaName === "knowledge_graph_rules"
          ? {
              rules: [
                {
                  name: "next is after",
                  statement: "What comes next is after.",
                  conditions: [{ subject: "?x", predicate: "next", object: "?y" }],
                  different: [],
                  conclusions: [{ subject: "?y", predicate: "after", object: "?x" }],
                },
              ],
              query: { kind: "none" },
            }
          : schemaName === "knowledge_graph_answer"
            ? { reasoning: ["n1 is after n0."], answer: "Yes.", answerKey: "yes", confidence: 0.8, supportingFacts: [] }
            : answerFor(schemaName, prompt);
      const { execute, store } = await setup({ maxGraphGrowth: 10 }, answers);
      const chain = Array.from({ length: 40 }, (_, index) => ({
        subject: `n${index}`,
        predicate: "next",
        object: `n${index + 1}`,
      }));
      const response = await execute(
        {
          taskId: "t-1",
          reasoningType: "deductive",
          goalQuery: "Is n1 after n0?",
          reasoningSessionId: "s-big",
          contextData: { facts: chain },
        },
        "caller-a",
      );
      expect(response.status, JSON.stringify(response.error)).not.toBe("failed");
      // All 40 facts are kept, and the model's rule derived over all of them (deduced relations have their own cap, maxDerivedFacts).
      const { relations } = await store.knowledgeGraph.loadGraph("s-big");
      expect(relations.filter((relation) => relation.provenance.kind === "host_data")).toHaveLength(40);
      expect(relations.filter((relation) => relation.validity === "derived")).toHaveLength(40);
    });

    it("refuses malformed facts and rules with errors naming the field, writing nothing", async () => {
      const { execute, count } = await setup();
      const cases: Array<[unknown, string, RegExp]> = [
        [
          { facts: [{ subject: "Alice", predicate: "parent_of", object: "?y" }] },
          "contextData.facts.0.object",
          /variables belong in rules/,
        ],
        [
          { facts: [{ subject: "Alice", predicate: "", object: "Bob" }] },
          "contextData.facts.0.predicate",
          /must not be empty/,
        ],
        [
          { facts: [{ subject: "Alice", predicate: "parent_of", object: "Bob", weight: 2 }] },
          "contextData.facts.0.weight",
          /unknown field/,
        ],
        [
          {
            rules: [
              {
                name: "r",
                conditions: [{ subject: "?x", predicate: "p", object: "?y" }],
                conclusions: [{ subject: "?x", predicate: "q", object: "?z" }],
              },
            ],
          },
          "contextData.rules.0.conclusions.0.object",
          /\?z does not occur in the conditions/,
        ],
        [
          { rules: [{ name: "r", conditions: [], conclusions: [{ subject: "a", predicate: "q", object: "b" }] }] },
          "contextData.rules.0.conditions",
          /at least one condition/,
        ],
        [
          {
            rules: [
              {
                name: "r",
                conditions: [{ subject: "?1x", predicate: "p", object: "?y" }],
                conclusions: [{ subject: "?y", predicate: "q", object: "b" }],
              },
            ],
          },
          "contextData.rules.0.conditions.0.subject",
          /a variable is/,
        ],
        [
          { rules: [rules[0], { ...rules[1], name: rules[0]?.name }] },
          "contextData.rules.1.name",
          /also the name of rules.0/,
        ],
        [
          { rules: [{ ...siblingRule, different: [{ left: "?x", right: "?w" }] }] },
          "contextData.rules.0.different.0.right",
          /\?w does not occur in the conditions/,
        ],
        [
          { rules: [{ ...siblingRule, different: [{ left: "?x", right: "?x" }] }] },
          "contextData.rules.0.different.0",
          /can never hold/,
        ],
        [{ rules: [{ ...siblingRule, different: [{ left: "?x" }] }] }, "contextData.rules.0.different.0.right", /./],
      ];
      for (const [contextData, field, message] of cases) {
        const refused = await errorOf(execute({ ...request, contextData }, "caller-a"));
        expect(refused.code).toBe("INVALID_INPUT");
        const issue = refused.issues.find((candidate) => candidate.field === field);
        expect(issue, `${field} in ${JSON.stringify(refused.issues)}`).toBeDefined();
        expect(`${issue?.message} ${refused.message}`).toMatch(message);
      }
      expect(await count("knowledge_graph_sessions")).toBe(0);
    });
  });
});

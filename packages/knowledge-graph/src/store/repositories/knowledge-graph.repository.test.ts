import type { Provenance } from "@deliberate/contracts";
import type { Store } from "@deliberate/store";
import type { Kysely } from "kysely";
import { testDialects } from "@deliberate/store/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestStore } from "../../test-support.ts";
import type { KnowledgeGraphRepository, NewEntity } from "./knowledge-graph.repository.ts";

const provenance: Provenance = { kind: "seed", taskId: "t1", step: "seed", reference: null };

function entity(id: string, key: string): NewEntity {
  return {
    id,
    sessionId: "s1",
    name: key.toUpperCase(),
    key,
    type: "concept",
    observations: [`about ${key}`],
    confidence: 0.9,
    validity: "asserted",
    provenance,
  };
}

describe.each(testDialects)("knowledge-graph repository on %s", (dialect) => {
  let store: Store<{ knowledgeGraph: KnowledgeGraphRepository }>;
  let repository: KnowledgeGraphRepository;

  beforeEach(async () => {
    store = await openTestStore(dialect);
    repository = store.knowledgeGraph;
    await repository.createSession({
      sessionId: "s1",
      taskId: "t1",
      goalQuery: "Why?",
      now: "2026-01-01T00:00:00.000Z",
    });
  });
  afterEach(async () => {
    await store.close();
  });

  it("registers a session in the shared sessions table and its own", async () => {
    expect(await repository.sessionIdTaken("s1")).toBe(true);
    expect(await repository.sessionIdTaken("s2")).toBe(false);
    expect(await repository.findSession("s1")).toMatchObject({
      sessionId: "s1",
      state: "active",
      revision: 0,
      pending: null,
      calls: 0,
    });
  });

  it("stores entities and relations with provenance, validity and derivations, in order", async () => {
    await repository.insertEntities(
      "s1",
      [entity("e1", "a"), entity("e2", "b"), entity("e3", "c")],
      "2026-01-01T00:00:01.000Z",
    );
    await repository.insertRelations(
      "s1",
      [
        {
          id: "r1",
          sessionId: "s1",
          subjectId: "e1",
          predicate: "p",
          objectId: "e2",
          confidence: 1,
          validity: "asserted",
          status: "asserted",
          conflictsWith: [],
          provenance,
          derivation: null,
        },
        {
          id: "r2",
          sessionId: "s1",
          subjectId: "e1",
          predicate: "q",
          objectId: "e3",
          confidence: 0.8,
          validity: "derived",
          status: "derived",
          conflictsWith: [],
          provenance: { kind: "deduction", taskId: "t2", step: "deduce", reference: "rule one" },
          derivation: { rule: "rule one", premises: [{ subject: "A", predicate: "p", object: "B" }] },
        },
      ],
      "2026-01-01T00:00:02.000Z",
    );
    const graph = await repository.loadGraph("s1");
    expect(graph.entities.map((item) => [item.id, item.position, item.key])).toEqual([
      ["e1", 0, "a"],
      ["e2", 1, "b"],
      ["e3", 2, "c"],
    ]);
    expect(graph.relations[1]).toMatchObject({
      id: "r2",
      position: 1,
      validity: "derived",
      provenance: { kind: "deduction", taskId: "t2", step: "deduce", reference: "rule one" },
      derivation: { rule: "rule one", premises: [{ subject: "A", predicate: "p", object: "B" }] },
    });
    expect(await repository.countGraph("s1")).toEqual({ entities: 3, relations: 2 });
  });

  it("refuses a second relation with the same subject, predicate and object, and a second entity with the same name", async () => {
    await repository.insertEntities("s1", [entity("e1", "a"), entity("e2", "b")], "2026-01-01T00:00:01.000Z");
    const relation = {
      id: "r1",
      sessionId: "s1",
      subjectId: "e1",
      predicate: "p",
      objectId: "e2",
      confidence: 1,
      validity: "asserted" as const,
      status: "asserted" as const,
      conflictsWith: [],
      provenance,
      derivation: null,
    };
    await repository.insertRelations("s1", [relation], "2026-01-01T00:00:02.000Z");
    await expect(
      repository.insertRelations("s1", [{ ...relation, id: "r2" }], "2026-01-01T00:00:03.000Z"),
    ).rejects.toThrow(/unique/i);
    await expect(repository.insertEntities("s1", [entity("e9", "a")], "2026-01-01T00:00:03.000Z")).rejects.toThrow(
      /unique/i,
    );
  });

  it("advances a session only from the revision it was read at", async () => {
    const now = "2026-01-01T00:01:00.000Z";
    expect(
      await repository.advanceSession({
        sessionId: "s1",
        expectedRevision: 0,
        state: "pending_tool_call",
        pending: { kind: "tool" },
        now,
      }),
    ).toBe(true);
    expect(
      await repository.advanceSession({ sessionId: "s1", expectedRevision: 0, state: "active", pending: null, now }),
    ).toBe(false);
    expect(await repository.findSession("s1")).toMatchObject({
      revision: 1,
      state: "pending_tool_call",
      pending: { kind: "tool" },
      calls: 1,
      lastActiveAt: now,
    });
  });

  it("counts live sessions, expires idle ones and closes sessions", async () => {
    await repository.createSession({ sessionId: "s2", taskId: "t", goalQuery: "q", now: "2026-01-01T00:10:00.000Z" });
    const cutoff = "2026-01-01T00:05:00.000Z";
    expect(await repository.countLiveSessions({ idleCutoff: "2025-12-31T00:00:00.000Z" })).toBe(2);
    expect(await repository.countLiveSessions({ idleCutoff: cutoff })).toBe(1);
    expect((await repository.leastRecentlyActiveSession({ idleCutoff: "2025-12-31T00:00:00.000Z" }))?.sessionId).toBe(
      "s1",
    );
    expect(await repository.expireIdleSessions({ idleCutoff: cutoff, now: "2026-01-01T00:11:00.000Z" })).toBe(1);
    expect(await repository.findSession("s1")).toMatchObject({
      state: "expired",
      closedAt: "2026-01-01T00:11:00.000Z",
    });
    await repository.closeSession({
      sessionId: "s2",
      state: "ended",
      closedAt: "2026-01-01T00:12:00.000Z",
      now: "2026-01-01T00:12:00.000Z",
    });
    expect(await repository.findSession("s2")).toMatchObject({ state: "ended", revision: 1 });
    expect(await repository.countLiveSessions({ idleCutoff: "2025-12-31T00:00:00.000Z" })).toBe(0);
  });

  it("updates entities and relations in place", async () => {
    await repository.insertEntities("s1", [entity("e1", "a"), entity("e2", "b")], "2026-01-01T00:00:01.000Z");
    await repository.insertRelations(
      "s1",
      [
        {
          id: "r1",
          sessionId: "s1",
          subjectId: "e1",
          predicate: "p",
          objectId: "e2",
          confidence: 0.4,
          validity: "hypothesized",
          status: "hypothetical",
          conflictsWith: [],
          provenance,
          derivation: null,
        },
      ],
      "2026-01-01T00:00:02.000Z",
    );
    await repository.updateEntity(
      { id: "e1", type: "organization", observations: ["x", "y"], confidence: 1, validity: "asserted", provenance },
      "2026-01-01T00:00:03.000Z",
    );
    await repository.updateRelation(
      {
        id: "r1",
        confidence: 0.9,
        validity: "asserted",
        status: "asserted",
        conflictsWith: [{ subject: "a", predicate: "not_p", object: "b" }],
        provenance: { ...provenance, kind: "tool_result", reference: "call-1" },
        derivation: null,
      },
      "2026-01-01T00:00:03.000Z",
    );
    const graph = await repository.loadGraph("s1");
    expect(graph.entities[0]).toMatchObject({ type: "organization", observations: ["x", "y"] });
    expect(graph.relations[0]).toMatchObject({
      confidence: 0.9,
      validity: "asserted",
      status: "asserted",
      conflictsWith: [{ subject: "a", predicate: "not_p", object: "b" }],
      provenance: { kind: "tool_result", reference: "call-1" },
    });
  });

  it("keeps a session's functional predicates and closure record, empty until saved", async () => {
    expect(await repository.loadReasoningState("s1")).toEqual({ functionalPredicates: [], closure: null });
    await repository.saveReasoningState("s1", {
      functionalPredicates: ["born_in", "capital_of"],
      closure: { rules: ["rule-a"], covered: 12 },
    });
    expect(await repository.loadReasoningState("s1")).toEqual({
      functionalPredicates: ["born_in", "capital_of"],
      closure: { rules: ["rule-a"], covered: 12 },
    });
    await repository.saveReasoningState("s1", { functionalPredicates: ["born_in"], closure: null });
    expect(await repository.loadReasoningState("s1")).toEqual({ functionalPredicates: ["born_in"], closure: null });
  });

  it("reads a relation stored before statuses existed by its validity and derivation", async () => {
    await repository.insertEntities("s1", [entity("e1", "a"), entity("e2", "b")], "2026-01-01T00:00:01.000Z");
    await repository.insertRelations(
      "s1",
      [
        {
          id: "r1",
          sessionId: "s1",
          subjectId: "e1",
          predicate: "p",
          objectId: "e2",
          confidence: 0.5,
          validity: "hypothesized",
          status: "hypothetical",
          conflictsWith: [],
          provenance,
          derivation: { rule: "r", premises: [] },
        },
      ],
      "2026-01-01T00:00:02.000Z",
    );
    const db = store.db as unknown as Kysely<{ knowledge_graph_relations: { id: string; status: string | null } }>;
    await db.updateTable("knowledge_graph_relations").set({ status: null }).where("id", "=", "r1").execute();
    expect((await repository.loadGraph("s1")).relations[0]?.status).toBe("derived_from_hypothesis");
  });

  it("deletes a session's graph with its shared session row", async () => {
    await repository.insertEntities("s1", [entity("e1", "a")], "2026-01-01T00:00:01.000Z");
    await (store.db as unknown as Kysely<{ sessions: { id: string } }>)
      .deleteFrom("sessions")
      .where("id", "=", "s1")
      .execute();
    expect(await repository.findSession("s1")).toBeUndefined();
    expect(await repository.countGraph("s1")).toEqual({ entities: 0, relations: 0 });
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store, type StoreContribution } from "@deliberate/store";
import { testDialects, useTestStores } from "@deliberate/store/testing";
import type { Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  createKnowledgeGraphRepository,
  type KnowledgeGraphRepository,
} from "../repositories/knowledge-graph.repository.ts";
import { knowledgeGraphMigrations } from "./index.ts";

const tables = knowledgeGraphMigrations["2026-11-24T1000-knowledge-graph-tables"];
const before: StoreContribution = {
  name: "knowledge-graph",
  migrations: { "2026-11-24T1000-knowledge-graph-tables": tables as NonNullable<typeof tables> },
  repositories: () => ({}),
};
const after: StoreContribution = {
  name: "knowledge-graph",
  migrations: knowledgeGraphMigrations,
  repositories: (db) => ({ knowledgeGraph: createKnowledgeGraphRepository(db) }),
};

const now = "2026-01-01T00:00:00.000Z";
const provenance = {
  provenance_kind: "seed",
  provenance_task_id: "t",
  provenance_step: null,
  provenance_reference: null,
};

/** A graph written by the shipped schema: an asserted, a derived, a hypothesized and a hypothesized-with-derivation relation. */
async function writeOldGraph(store: Store): Promise<void> {
  const db = store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  await db
    .insertInto("sessions")
    .values({ id: "s1", mode: "knowledge_graph", active_branch_id: null, created_at: now, updated_at: now })
    .execute();
  await db
    .insertInto("knowledge_graph_sessions")
    .values({
      session_id: "s1",
      first_task_id: "t",
      goal_query: "q",
      state: "active",
      revision: 1,
      pending: null,
      calls: 1,
      created_at: now,
      updated_at: now,
      last_active_at: now,
      closed_at: null,
    })
    .execute();
  for (const [index, name] of ["a", "b"].entries()) {
    await db
      .insertInto("knowledge_graph_entities")
      .values({
        id: `e-${name}`,
        session_id: "s1",
        position: index,
        name,
        normalized_name: name,
        type: "concept",
        observations: "[]",
        confidence: 1,
        validity: "asserted",
        ...provenance,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  const derivation = JSON.stringify({ rule: "r", premises: [{ subject: "a", predicate: "p", object: "b" }] });
  const rows = [
    { id: "r-asserted", predicate: "p", validity: "asserted", derivation: null },
    { id: "r-derived", predicate: "q", validity: "derived", derivation },
    { id: "r-hypothesized", predicate: "h", validity: "hypothesized", derivation: null },
    { id: "r-from-hypothesis", predicate: "k", validity: "hypothesized", derivation },
  ];
  for (const [index, row] of rows.entries()) {
    await db
      .insertInto("knowledge_graph_relations")
      .values({
        ...row,
        session_id: "s1",
        position: index,
        subject_id: "e-a",
        object_id: "e-b",
        confidence: 1,
        ...provenance,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
}

describe.each(testDialects)("the epistemic-status migration on %s", (dialect) => {
  const open = useTestStores<{ knowledgeGraph: KnowledgeGraphRepository }>(dialect);
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it("adds the status and conflict columns and backfills each stored relation's status from its validity and derivation", async () => {
    let migrated: Store<{ knowledgeGraph: KnowledgeGraphRepository }>;
    if (dialect === "sqlite") {
      // An in-memory database cannot be reopened: a file stands for the shipped database.
      const directory = mkdtempSync(join(tmpdir(), "kg-migration-"));
      cleanup.push(() => rmSync(directory, { recursive: true, force: true }));
      const path = join(directory, "deliberate.db");
      const old = await openStore({ path, modules: [before] });
      await writeOldGraph(old);
      await old.close();
      migrated = await openStore<{ knowledgeGraph: KnowledgeGraphRepository }>({ path, modules: [after] });
      cleanup.push(() => migrated.close());
    } else {
      const old = await open({ modules: [before] });
      await writeOldGraph(old);
      migrated = await open({ modules: [after], replicaOf: old });
    }
    const graph = await migrated.knowledgeGraph.loadGraph("s1");
    const db = migrated.db as unknown as Kysely<{ knowledge_graph_relations: { id: string; status: string | null } }>;
    const stored = await db.selectFrom("knowledge_graph_relations").select(["id", "status"]).orderBy("id").execute();
    expect(stored).toEqual([
      { id: "r-asserted", status: "asserted" },
      { id: "r-derived", status: "derived" },
      { id: "r-from-hypothesis", status: "derived_from_hypothesis" },
      { id: "r-hypothesized", status: "hypothetical" },
    ]);
    expect(graph.relations.map((relation) => relation.conflictsWith)).toEqual([[], [], [], []]);
    expect(await migrated.knowledgeGraph.loadReasoningState("s1")).toEqual({ functionalPredicates: [], closure: null });
  });
});

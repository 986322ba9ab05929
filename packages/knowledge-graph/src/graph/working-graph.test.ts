import type { Provenance } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderSubgraph, selectSubgraph } from "./subgraph.ts";
import { findContradictions } from "../algorithms/contradictions.ts";
import { WorkingGraph } from "./working-graph.ts";

const provenance: Provenance = { kind: "seed", taskId: "t", step: "seed", reference: null };
const asserted = { confidence: 0.9, validity: "asserted" as const, provenance };

function people(...names: string[]): WorkingGraph {
  const graph = new WorkingGraph();
  for (const name of names) graph.upsertEntity({ name, type: "concept", observations: [] }, asserted);
  return graph;
}

function graphOf(size: number): WorkingGraph {
  const graph = new WorkingGraph();
  for (let index = 0; index < size; index += 1)
    graph.upsertEntity({ name: `Entity ${index}`, type: "concept", observations: [`fact ${index}`] }, asserted);
  for (let index = 1; index < size; index += 1)
    graph.upsertRelation({ subject: `entity ${index - 1}`, predicate: "next", object: `entity ${index}` }, asserted);
  return graph;
}

describe("working graph", () => {
  it("keeps one relation per (subject, predicate, object); a stronger validity replaces a weaker one", () => {
    const graph = new WorkingGraph();
    graph.upsertEntity({ name: "A", type: "concept", observations: [] }, asserted);
    graph.upsertEntity({ name: "B", type: "concept", observations: [] }, asserted);
    const fact = { subject: "a", predicate: "Causes", object: "b" };
    expect(
      graph.upsertRelation(fact, {
        confidence: 0.4,
        validity: "hypothesized",
        provenance: { ...provenance, kind: "abduction" },
      }),
    ).toEqual({ created: true, changed: false, refusedBy: null });
    expect(graph.upsertRelation(fact, { confidence: 0.3, validity: "hypothesized", provenance })).toEqual({
      created: false,
      changed: false,
      refusedBy: null,
    });
    expect(
      graph.upsertRelation(fact, {
        confidence: 0.8,
        validity: "asserted",
        provenance: { ...provenance, kind: "tool_result" },
      }),
    ).toEqual({ created: false, changed: true, refusedBy: null });
    expect(graph.relations()).toHaveLength(1);
    expect(graph.relations()[0]).toMatchObject({
      predicate: "causes",
      validity: "asserted",
      confidence: 0.8,
      provenance: { kind: "tool_result" },
    });
    // A weaker source neither demotes an asserted fact nor raises its confidence.
    expect(graph.upsertRelation(fact, { confidence: 1, validity: "hypothesized", provenance })).toEqual({
      created: false,
      changed: false,
      refusedBy: null,
    });
    expect(graph.relations()[0]).toMatchObject({ validity: "asserted", status: "asserted", confidence: 0.8 });
    expect(graph.upsertRelation(fact, { confidence: 0.95, validity: "asserted", provenance })).toEqual({
      created: false,
      changed: true,
      refusedBy: null,
    });
    expect(() => graph.upsertRelation({ subject: "a", predicate: "p", object: "nobody" }, asserted)).toThrow(
      /does not have/,
    );
  });

  it("retracts a hypothesis that an asserted fact contradicts, keeping it for provenance", () => {
    const graph = new WorkingGraph();
    graph.upsertEntity({ name: "Dave", type: "person", observations: [] }, asserted);
    graph.upsertEntity({ name: "Paris", type: "place", observations: [] }, asserted);
    graph.upsertRelation(
      { subject: "dave", predicate: "lives_in", object: "paris" },
      { confidence: 0.6, validity: "hypothesized", provenance },
    );
    graph.upsertRelation(
      { subject: "dave", predicate: "not_lives_in", object: "paris" },
      { ...asserted, provenance: { ...provenance, kind: "user_input" } },
    );
    expect(graph.relation({ subject: "dave", predicate: "lives_in", object: "paris" })?.validity).toBe("retracted");
    expect(graph.believedFacts().facts.map((fact) => fact.predicate)).toEqual(["not_lives_in"]);
    expect(graph.retractedFacts()).toHaveLength(1);
    expect(graph.relation({ subject: "dave", predicate: "lives_in", object: "paris" })?.conflicts).toEqual([
      { subject: "dave", predicate: "not_lives_in", object: "paris" },
    ]);
    expect(graph.drainConflicts()).toEqual([
      {
        outcome: "retracted",
        fact: { subject: "dave", predicate: "not_lives_in", object: "paris" },
        status: "asserted",
        against: [{ fact: { subject: "dave", predicate: "lives_in", object: "paris" }, status: "hypothetical" }],
      },
    ]);
  });

  it("refuses a hypothesis that contradicts an asserted fact, and names the conflict", () => {
    const graph = people("Dave", "Paris", "Lyon");
    graph.declareFunctional(["lives_in"]);
    graph.upsertRelation({ subject: "dave", predicate: "lives_in", object: "paris" }, asserted);
    const outcome = graph.upsertRelation(
      { subject: "dave", predicate: "lives_in", object: "lyon" },
      { confidence: 0.9, validity: "hypothesized", provenance },
    );
    expect(outcome).toEqual({
      created: false,
      changed: false,
      refusedBy: [{ subject: "dave", predicate: "lives_in", object: "paris" }],
    });
    expect(graph.relation({ subject: "dave", predicate: "lives_in", object: "lyon" })).toBeUndefined();
    expect(graph.drainConflicts()).toMatchObject([
      { outcome: "refused", status: "hypothetical", against: [{ status: "asserted" }] },
    ]);
  });

  it("flags two equally strong contradicting facts and believes neither", () => {
    const graph = people("Dave", "Paris");
    graph.upsertRelation({ subject: "dave", predicate: "lives_in", object: "paris" }, asserted);
    graph.upsertRelation({ subject: "dave", predicate: "not_lives_in", object: "paris" }, asserted);
    expect(graph.believedFacts().size).toBe(0);
    expect(graph.relation({ subject: "dave", predicate: "lives_in", object: "paris" })?.conflicts).toHaveLength(1);
    expect(graph.relation({ subject: "dave", predicate: "not_lives_in", object: "paris" })?.conflicts).toHaveLength(1);
    // A stronger word settles it: a derivation cannot, but the contest ends when one side is retracted by nothing weaker.
    expect(graph.drainConflicts().map((event) => event.outcome)).toEqual(["contested"]);
  });

  it("keeps the weakest status of the premises through derivations and follows the premises when they change", () => {
    const graph = people("Dave", "Paris", "France");
    const hypothesis = { subject: "dave", predicate: "lives_in", object: "paris" };
    graph.upsertRelation(hypothesis, { confidence: 0.6, validity: "hypothesized", status: "hypothetical", provenance });
    graph.upsertRelation({ subject: "paris", predicate: "in", object: "france" }, asserted);
    const derivation = {
      rule: "lives in what contains",
      premises: [
        { subject: "Dave", predicate: "lives_in", object: "Paris" },
        { subject: "Paris", predicate: "in", object: "France" },
      ],
    };
    graph.upsertRelation(
      { subject: "dave", predicate: "lives_in", object: "france" },
      { confidence: 0.6, validity: "hypothesized", status: "derived_from_hypothesis", provenance, derivation },
    );
    const conclusion = { subject: "dave", predicate: "lives_in", object: "france" };
    expect(graph.relation(conclusion)).toMatchObject({ status: "derived_from_hypothesis", validity: "hypothesized" });
    // The user confirms the hypothesis: the conclusion becomes a proof.
    graph.upsertRelation(hypothesis, asserted);
    expect(graph.relation(conclusion)).toMatchObject({ status: "derived", validity: "derived" });
    // Then contradicts it outright: the premise cannot be both; the contest withdraws the conclusion.
    graph.upsertRelation({ subject: "dave", predicate: "not_lives_in", object: "paris" }, asserted);
    expect(graph.relation(conclusion)?.validity).toBe("retracted");
    expect(graph.believedFacts().has(conclusion)).toBe(false);
  });

  it("keeps every believed conclusion at the weakest status of its believed premises, whatever arrives later", () => {
    // Base facts n0 p n1 ... ; conclusions n_i q n_j derived from two earlier facts; then statuses change or negations arrive.
    const step = fc.record({
      kind: fc.constantFrom("base", "derive", "confirm", "negate"),
      a: fc.nat(5),
      b: fc.nat(5),
      status: fc.constantFrom("asserted", "hypothetical") as fc.Arbitrary<"asserted" | "hypothetical">,
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => {
        const graph = people("N0", "N1", "N2", "N3", "N4", "N5");
        const facts: Array<{ subject: string; predicate: string; object: string }> = [];
        const display = (fact: { subject: string; predicate: string; object: string }) => ({
          subject: fact.subject.toUpperCase(),
          predicate: fact.predicate,
          object: fact.object.toUpperCase(),
        });
        for (const item of steps) {
          if (item.kind === "base") {
            const fact = { subject: `n${item.a}`, predicate: "p", object: `n${item.b}` };
            graph.upsertRelation(fact, { confidence: 1, validity: "asserted", status: item.status, provenance });
            facts.push(fact);
          } else if (item.kind === "derive" && facts.length > 0) {
            const first = facts[item.a % facts.length] as (typeof facts)[number];
            const second = facts[item.b % facts.length] as (typeof facts)[number];
            const premises = [graph.relation(first), graph.relation(second)];
            if (premises.some((premise) => !premise || !WorkingGraph.believes(premise))) continue;
            const fact = { subject: first.subject, predicate: "q", object: second.object };
            const status = premises.some(
              (premise) => premise?.status === "hypothetical" || premise?.status === "derived_from_hypothesis",
            )
              ? "derived_from_hypothesis"
              : "derived";
            graph.upsertRelation(fact, {
              confidence: 1,
              validity: "derived",
              status,
              provenance,
              derivation: { rule: "r", premises: [display(first), display(second)] },
            });
            facts.push(fact);
          } else if (item.kind === "confirm" && facts.length > 0) {
            const fact = facts[item.a % facts.length] as (typeof facts)[number];
            if (fact.predicate === "p")
              graph.upsertRelation(fact, { confidence: 1, validity: "asserted", status: "asserted", provenance });
          } else if (item.kind === "negate" && facts.length > 0) {
            const fact = facts[item.a % facts.length] as (typeof facts)[number];
            graph.upsertRelation(
              { ...fact, predicate: `not_${fact.predicate}` },
              { confidence: 1, validity: "asserted", status: item.status, provenance },
            );
          }
        }
        for (const relation of graph.relations()) {
          if (relation.derivation === null || !WorkingGraph.believes(relation)) continue;
          const premises = relation.derivation.premises.map((triple) =>
            graph.relation({
              subject: triple.subject.toLowerCase(),
              predicate: triple.predicate,
              object: triple.object.toLowerCase(),
            }),
          );
          for (const premise of premises) expect(premise && WorkingGraph.believes(premise)).toBe(true);
          const weakest = premises.some(
            (premise) => premise?.status === "hypothetical" || premise?.status === "derived_from_hypothesis",
          )
            ? "derived_from_hypothesis"
            : "derived";
          expect(relation.status).toBe(weakest);
          expect(relation.validity).toBe(weakest === "derived" ? "derived" : "hypothesized");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("never believes a contradiction, never lets a weaker fact displace a stronger one, and flags every fact it does not believe", () => {
    const statuses = ["asserted", "derived", "hypothetical", "derived_from_hypothesis"] as const;
    const strength = { asserted: 3, derived: 2, hypothetical: 1, derived_from_hypothesis: 1 };
    const arrival = fc.record({
      subject: fc.constantFrom("a", "b", "c"),
      predicate: fc.constantFrom("p", "not_p", "f", "not_f", "g"),
      object: fc.constantFrom("a", "b", "c"),
      status: fc.constantFrom(...statuses),
    });
    fc.assert(
      fc.property(fc.array(arrival, { maxLength: 40 }), fc.boolean(), (arrivals, functionalFirst) => {
        const graph = people("A", "B", "C");
        if (functionalFirst) graph.declareFunctional(["f"]);
        for (const item of arrivals) {
          const fact = { subject: item.subject, predicate: item.predicate, object: item.object };
          const outcome = graph.upsertRelation(fact, {
            confidence: 0.5,
            validity: "asserted",
            status: item.status,
            provenance,
          });
          for (const winner of outcome.refusedBy ?? [])
            expect(strength[graph.relation(winner)?.status ?? "hypothetical"]).toBeGreaterThan(strength[item.status]);
        }
        if (!functionalFirst) graph.declareFunctional(["f"]);
        expect(findContradictions(graph.believedFacts().facts, new Set(["f"]))).toEqual([]);
        for (const relation of graph.relations()) {
          if (WorkingGraph.believes(relation)) continue;
          // Not believed: retracted by a named winner at least as strong, or contested by equally strong rivals.
          expect(relation.conflicts.length).toBeGreaterThan(0);
          for (const rival of relation.conflicts) {
            const other = graph.relation(rival);
            if (relation.validity === "retracted")
              expect(strength[other?.status ?? "asserted"]).toBeGreaterThan(strength[relation.status]);
            else expect(strength[other?.status ?? "asserted"]).toBe(strength[relation.status]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("merges a fresh entity into another, moving its relations, and reports growth", () => {
    const graph = new WorkingGraph();
    for (const name of ["Acme Corp", "Acme", "Lyon"])
      graph.upsertEntity({ name, type: "organization", observations: [name] }, asserted);
    graph.upsertRelation({ subject: "acme", predicate: "located_in", object: "lyon" }, asserted);
    graph.upsertRelation({ subject: "acme corp", predicate: "located_in", object: "lyon" }, asserted);
    expect(graph.growth).toBe(5);
    graph.mergeEntities("acme corp", "acme");
    expect(graph.entities().map((entity) => entity.name)).toEqual(["Acme Corp", "Lyon"]);
    expect(graph.entity("acme corp")?.observations).toEqual(["Acme Corp", "Acme"]);
    expect(graph.relations()).toHaveLength(1);
    expect(graph.growth).toBe(3);
  });

  it("shows prompts a bounded subgraph however large the graph grows", () => {
    fc.assert(
      fc.property(fc.integer({ min: 50, max: 400 }), (size) => {
        const graph = graphOf(size);
        const subgraph = selectSubgraph(graph, { query: "entity 7", include: ["entity 300"] });
        expect(subgraph.entities.length).toBe(40);
        expect(subgraph.relations.length).toBeLessThanOrEqual(80);
        expect(subgraph.entities.map((entity) => entity.key)).toContain("entity 7");
        if (size > 300) expect(subgraph.entities.map((entity) => entity.key)).toContain("entity 300");
        const text = renderSubgraph(graph, subgraph);
        expect(text).toContain(`Entities (40 of ${size})`);
        expect(text.length).toBeLessThan(4000);
      }),
      { numRuns: 20 },
    );
  });
});

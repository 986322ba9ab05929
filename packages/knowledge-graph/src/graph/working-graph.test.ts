import type { Provenance } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderSubgraph, selectSubgraph } from "./subgraph.ts";
import { WorkingGraph } from "./working-graph.ts";

const provenance: Provenance = { kind: "seed", taskId: "t", step: "seed", reference: null };
const asserted = { confidence: 0.9, validity: "asserted" as const, provenance };

function graphOf(size: number): WorkingGraph {
  const graph = new WorkingGraph();
  for (let index = 0; index < size; index += 1) graph.upsertEntity({ name: `Entity ${index}`, type: "concept", observations: [`fact ${index}`] }, asserted);
  for (let index = 1; index < size; index += 1) graph.upsertRelation({ subject: `entity ${index - 1}`, predicate: "next", object: `entity ${index}` }, asserted);
  return graph;
}

describe("working graph", () => {
  it("keeps one relation per (subject, predicate, object); a stronger validity replaces a weaker one", () => {
    const graph = new WorkingGraph();
    graph.upsertEntity({ name: "A", type: "concept", observations: [] }, asserted);
    graph.upsertEntity({ name: "B", type: "concept", observations: [] }, asserted);
    const fact = { subject: "a", predicate: "Causes", object: "b" };
    expect(graph.upsertRelation(fact, { confidence: 0.4, validity: "hypothesized", provenance: { ...provenance, kind: "abduction" } })).toEqual({ created: true, changed: false });
    expect(graph.upsertRelation(fact, { confidence: 0.3, validity: "hypothesized", provenance })).toEqual({ created: false, changed: false });
    expect(graph.upsertRelation(fact, { confidence: 0.8, validity: "asserted", provenance: { ...provenance, kind: "tool_result" } })).toEqual({ created: false, changed: true });
    expect(graph.relations()).toHaveLength(1);
    expect(graph.relations()[0]).toMatchObject({ predicate: "causes", validity: "asserted", confidence: 0.8, provenance: { kind: "tool_result" } });
    expect(graph.upsertRelation(fact, { confidence: 1, validity: "hypothesized", provenance })).toEqual({ created: false, changed: true });
    expect(graph.relations()[0]).toMatchObject({ validity: "asserted", confidence: 1 });
    expect(() => graph.upsertRelation({ subject: "a", predicate: "p", object: "nobody" }, asserted)).toThrow(/does not have/);
  });

  it("retracts a hypothesis that an asserted fact contradicts, keeping it for provenance", () => {
    const graph = new WorkingGraph();
    graph.upsertEntity({ name: "Dave", type: "person", observations: [] }, asserted);
    graph.upsertEntity({ name: "Paris", type: "place", observations: [] }, asserted);
    graph.upsertRelation({ subject: "dave", predicate: "lives_in", object: "paris" }, { confidence: 0.6, validity: "hypothesized", provenance });
    graph.upsertRelation({ subject: "dave", predicate: "not_lives_in", object: "paris" }, { ...asserted, provenance: { ...provenance, kind: "user_input" } });
    expect(graph.relation({ subject: "dave", predicate: "lives_in", object: "paris" })?.validity).toBe("retracted");
    expect(graph.believedFacts().facts.map((fact) => fact.predicate)).toEqual(["not_lives_in"]);
    expect(graph.retractedFacts()).toHaveLength(1);
  });

  it("merges a fresh entity into another, moving its relations, and reports growth", () => {
    const graph = new WorkingGraph();
    for (const name of ["Acme Corp", "Acme", "Lyon"]) graph.upsertEntity({ name, type: "organization", observations: [name] }, asserted);
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

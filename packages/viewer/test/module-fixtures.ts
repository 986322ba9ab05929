import type { DialogSection, KnowledgeGraphSection } from "../src/section-shapes.ts";

/**
 * A dialog transcript in the documented `dialog` section shape (the dialog
 * module is being built; this is the contract its section must meet).
 */
export const dialogFixture: DialogSection = {
  id: "dlg_1",
  topic: "Should the API cache responses?",
  status: "threshold_met",
  quality_threshold: 0.8,
  max_iterations: 4,
  agents: [
    { name: "think", role: "Deep structured analysis" },
    { name: "dialog", role: "Synthesis and improvement directives" },
  ],
  iterations: [
    { iteration: 0, quality: 0.45 },
    { iteration: 1, quality: 0.68 },
    { iteration: 2, quality: 0.84 },
  ],
  exchanges: [
    {
      iteration: 0,
      agent: "think",
      role: "initiator",
      content: "Caching helps read-heavy endpoints; writes need invalidation.",
      input_tokens: 410,
      output_tokens: 220,
      created_at: "2026-11-22T10:00:00.000Z",
    },
    {
      iteration: 0,
      agent: "dialog",
      role: "responder",
      content: "Gap: no numbers on the read/write ratio. Directive: quantify it.",
      quality: 0.45,
      input_tokens: 380,
      output_tokens: 90,
      created_at: "2026-11-22T10:00:05.000Z",
    },
    {
      iteration: 1,
      agent: "think",
      role: "initiator",
      content: "Reads are 92% of traffic; a 60 s TTL covers most endpoints.",
      input_tokens: 520,
      output_tokens: 260,
      created_at: "2026-11-22T10:00:10.000Z",
    },
    {
      iteration: 1,
      agent: "dialog",
      role: "responder",
      content: "Better. Missing: what happens on a stale read of billing data?",
      quality: 0.68,
      input_tokens: 430,
      output_tokens: 80,
      created_at: "2026-11-22T10:00:15.000Z",
    },
    {
      iteration: 2,
      agent: "think",
      role: "initiator",
      content: "Billing endpoints bypass the cache; everything else uses a 60 s TTL.",
      input_tokens: 600,
      output_tokens: 240,
      created_at: "2026-11-22T10:00:20.000Z",
    },
    {
      iteration: 2,
      agent: "dialog",
      role: "responder",
      content: "Complete enough to act on.",
      quality: 0.84,
      input_tokens: 470,
      output_tokens: 40,
      created_at: "2026-11-22T10:00:25.000Z",
    },
  ],
  result: "Cache read endpoints for 60 s; billing bypasses the cache.",
};

/**
 * A knowledge graph in the documented `knowledge_graph` section shape: two
 * relations derived by a rule from asserted ones (the module is being built).
 */
export const knowledgeGraphFixture: KnowledgeGraphSection = {
  entities: [
    { id: "e_api", name: "API", type: "service", provenance: { kind: "extracted", source: "goal query" } },
    { id: "e_cache", name: "Cache", type: "component", provenance: { kind: "extracted", source: "goal query" } },
    { id: "e_db", name: "Database", type: "component", provenance: { kind: "asserted", source: "context" } },
    { id: "e_latency", name: "Latency", type: "metric", provenance: { kind: "asserted", source: "context" } },
  ],
  relations: [
    {
      id: "r1",
      source: "e_api",
      target: "e_cache",
      predicate: "reads_through",
      confidence: 0.9,
      provenance: { kind: "asserted", source: "context" },
    },
    {
      id: "r2",
      source: "e_cache",
      target: "e_db",
      predicate: "reads_through",
      confidence: 0.8,
      provenance: { kind: "extracted", source: "task 1" },
    },
    {
      id: "r3",
      source: "e_db",
      target: "e_latency",
      predicate: "drives",
      confidence: 0.7,
      provenance: { kind: "asserted", source: "context" },
    },
    {
      id: "r4",
      source: "e_api",
      target: "e_db",
      predicate: "depends_on",
      confidence: 0.72,
      provenance: {
        kind: "derived",
        source: "deductive step 2",
        derivation: { rule: "reads_through(x, y) ∧ reads_through(y, z) → depends_on(x, z)", premises: ["r1", "r2"] },
      },
    },
    {
      id: "r5",
      source: "e_api",
      target: "e_latency",
      predicate: "affected_by",
      confidence: 0.5,
      provenance: {
        kind: "derived",
        source: "deductive step 3",
        derivation: { rule: "depends_on(x, y) ∧ drives(y, z) → affected_by(x, z)", premises: ["r4", "r3"] },
      },
    },
  ],
};

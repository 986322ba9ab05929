import { describe, expect, it } from "vitest";
import { exportSession } from "@deliberate/engine";
import { type ReasoningSessionRecord, reasoningSessionSections } from "./session-sections.ts";

const record: ReasoningSessionRecord = {
  session: {
    id: "ses_1",
    mode: "tree",
    active_branch_id: "br_2",
    created_at: "2026-11-22T10:00:00.000Z",
    updated_at: "2026-11-22T10:05:00.000Z",
  },
  thoughts: [
    {
      id: "th_1",
      session_id: "ses_1",
      branch_id: null,
      parent_id: null,
      mode: "input",
      content: 'Pick a "cache"',
      confidence: null,
      status: "active",
      metadata: {},
      created_at: "t",
    },
    {
      id: "th_2",
      session_id: "ses_1",
      branch_id: "br_2",
      parent_id: "th_1",
      mode: "tree",
      content: "Edge <cache> | fast",
      confidence: 0.9,
      status: "superseded",
      metadata: {},
      created_at: "t",
    },
  ],
  branches: [
    {
      id: "br_1",
      session_id: "ses_1",
      parent_branch_id: null,
      content: "root",
      score: 1,
      status: "active",
      created_at: "t",
      updated_at: "t",
    },
    {
      id: "br_2",
      session_id: "ses_1",
      parent_branch_id: "br_1",
      content: "Edge | cache",
      score: 0.9,
      status: "completed",
      created_at: "t",
      updated_at: "t",
    },
  ],
  checkpoints: [
    {
      id: "cp_1",
      session_id: "ses_1",
      name: "start",
      description: null,
      thought_count: 1,
      snapshot: {},
      created_at: "t",
    },
  ],
};

describe("session export", () => {
  it("renders Markdown with every thought, its status, branches and checkpoints", () => {
    const markdown = exportSession(record, "markdown", reasoningSessionSections);
    expect(markdown).toContain("# Session ses_1");
    expect(markdown).toContain("### 2. tree, confidence 0.9, branch br_2 — superseded by a checkpoint restore");
    expect(markdown).toContain("| br_2 | br_1 | completed | 0.9 | Edge \\| cache |");
    expect(markdown).toContain("**start** (cp_1, t): 1 thoughts");
  });

  it("renders a Mermaid flowchart with escaped labels, parent edges and dashed superseded thoughts", () => {
    const mermaid = exportSession(record, "mermaid", reasoningSessionSections);
    expect(mermaid.startsWith("flowchart TD\n")).toBe(true);
    expect(mermaid).toContain('n1["input: Pick a #quot;cache#quot;"]');
    expect(mermaid).toContain('n2["tree: Edge #lt;cache#gt; | fast"]');
    expect(mermaid).toContain("n1 --> n2");
    expect(mermaid).toContain("n3 -.-> n4");
    expect(mermaid).toContain("class n2 superseded");
  });

  it("round-trips JSON", () => {
    expect(JSON.parse(exportSession(record, "json", reasoningSessionSections))).toEqual(record);
  });
});

describe("session export of graphs and search trees", () => {
  const withStructures: ReasoningSessionRecord = {
    ...record,
    graph: {
      graph: {
        session_id: "ses_1",
        root_node_id: "gn_1",
        problem: null,
        max_nodes: 100,
        max_depth: 10,
        prune_threshold: 0.3,
        created_at: "t",
        updated_at: "t",
      },
      nodes: [
        {
          id: "gn_1",
          session_id: "ses_1",
          position: 0,
          parent_id: null,
          kind: "root",
          content: "Cut CI time",
          depth: 0,
          score: null,
          criteria: null,
          status: "active",
          is_terminal: false,
          metadata: {},
          created_at: "t",
          updated_at: "t",
        },
        {
          id: "gn_2",
          session_id: "ses_1",
          position: 1,
          parent_id: "gn_1",
          kind: "continuation",
          content: "Cache deps",
          depth: 1,
          score: 0.8,
          criteria: null,
          status: "pruned",
          is_terminal: false,
          metadata: {},
          created_at: "t",
          updated_at: "t",
        },
      ],
      edges: [
        {
          id: "ge_1",
          session_id: "ses_1",
          from_node_id: "gn_1",
          to_node_id: "gn_2",
          kind: "continuation",
          created_at: "t",
        },
      ],
    },
    search_nodes: [
      {
        id: "mc_1",
        session_id: "ses_1",
        root_id: "mc_1",
        parent_id: null,
        position: 0,
        depth: 0,
        content: "root",
        visits: 4,
        total_value: 2,
        evaluation: null,
        is_terminal: false,
        metadata: {},
        created_at: "t",
        updated_at: "t",
      },
    ],
  };

  it("lists graph nodes and search nodes in Markdown", () => {
    const markdown = exportSession(withStructures, "markdown", reasoningSessionSections);
    expect(markdown).toContain("| gn_2 | gn_1 | continuation | 1 | 0.8 | pruned | Cache deps |");
    expect(markdown).toContain("| mc_1 | — | 0 | 4 | 0.500 | root |");
  });

  it("draws graph edges with their kind in Mermaid", () => {
    const mermaid = exportSession(withStructures, "mermaid", reasoningSessionSections);
    expect(mermaid).toMatch(/n\d+ -->\|continuation\| n\d+/);
    expect(mermaid).toContain('[/"4 visits: root"/]');
  });
});

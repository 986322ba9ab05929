import { describe, expect, it } from "vitest";
import type { SessionRecord } from "../engine.ts";
import { exportSession } from "./session-export.ts";

const record: SessionRecord = {
  session: { id: "ses_1", mode: "tree", active_branch_id: "br_2", created_at: "2026-11-22T10:00:00.000Z", updated_at: "2026-11-22T10:05:00.000Z" },
  thoughts: [
    { id: "th_1", session_id: "ses_1", branch_id: null, parent_id: null, mode: "input", content: 'Pick a "cache"', confidence: null, status: "active", metadata: {}, created_at: "t" },
    { id: "th_2", session_id: "ses_1", branch_id: "br_2", parent_id: "th_1", mode: "tree", content: "Edge <cache> | fast", confidence: 0.9, status: "superseded", metadata: {}, created_at: "t" },
  ],
  branches: [
    { id: "br_1", session_id: "ses_1", parent_branch_id: null, content: "root", score: 1, status: "active", created_at: "t", updated_at: "t" },
    { id: "br_2", session_id: "ses_1", parent_branch_id: "br_1", content: "Edge | cache", score: 0.9, status: "completed", created_at: "t", updated_at: "t" },
  ],
  checkpoints: [{ id: "cp_1", session_id: "ses_1", name: "start", description: null, thought_count: 1, snapshot: {}, created_at: "t" }],
};

describe("session export", () => {
  it("renders Markdown with every thought, its status, branches and checkpoints", () => {
    const markdown = exportSession(record, "markdown");
    expect(markdown).toContain("# Session ses_1");
    expect(markdown).toContain("### 2. tree, confidence 0.9, branch br_2 — superseded by a checkpoint restore");
    expect(markdown).toContain("| br_2 | br_1 | completed | 0.9 | Edge \\| cache |");
    expect(markdown).toContain("**start** (cp_1, t): 1 thoughts");
  });

  it("renders a Mermaid flowchart with escaped labels, parent edges and dashed superseded thoughts", () => {
    const mermaid = exportSession(record, "mermaid");
    expect(mermaid.startsWith("flowchart TD\n")).toBe(true);
    expect(mermaid).toContain('n1["input: Pick a #quot;cache#quot;"]');
    expect(mermaid).toContain('n2["tree: Edge #lt;cache#gt; | fast"]');
    expect(mermaid).toContain("n1 --> n2");
    expect(mermaid).toContain("n3 -.-> n4");
    expect(mermaid).toContain("class n2 superseded");
  });

  it("round-trips JSON", () => {
    expect(JSON.parse(exportSession(record, "json"))).toEqual(record);
  });
});

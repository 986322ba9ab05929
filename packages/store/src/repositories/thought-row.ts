import type { Thought } from "@deliberate/contracts";
import { parseJsonObject } from "../json-column.ts";
import type { ThoughtRow } from "../tables/thought.table.ts";

/** A stored thought row as the thought it records (metadata parsed, status narrowed). */
export function toThought(row: ThoughtRow): Thought {
  return {
    id: row.id,
    session_id: row.session_id,
    branch_id: row.branch_id,
    parent_id: row.parent_id,
    mode: row.mode,
    content: row.content,
    confidence: row.confidence,
    status: row.status === "superseded" ? "superseded" : "active",
    metadata: parseJsonObject(row.metadata, `thought ${row.id}`),
    created_at: row.created_at,
  };
}

import type { Migration } from "kysely";
import { knowledgeGraphTables } from "./2026-11-24T1000-knowledge-graph-tables.ts";
import { epistemicStatusMigration } from "./2026-11-27T1700-knowledge-graph-epistemic-status.ts";
import { sessionBindingTables } from "./2026-11-27T1700-knowledge-graph-session-bindings.ts";

/** The module's migrations, keyed by timestamped name (applied after the base tables). */
export const knowledgeGraphMigrations: Record<string, Migration> = {
  "2026-11-24T1000-knowledge-graph-tables": knowledgeGraphTables,
  "2026-11-27T1700-knowledge-graph-epistemic-status": epistemicStatusMigration,
  "2026-11-27T1700-knowledge-graph-session-bindings": sessionBindingTables,
};

import type { Migration } from "kysely";
import { branchCheckpointTables } from "./2026-11-22T0500-core-tables.ts";
import { workflowRuns } from "./2026-11-22T0610-workflow-runs.ts";
import { graphTimelineMctsTables } from "./2026-11-22T0630-graph-timeline-mcts.ts";

/** The reasoning module's tables: branches, checkpoints, workflow runs, graphs, timelines, search nodes. */
export const reasoningMigrations: Readonly<Record<string, Migration>> = {
  "2026-11-22T0500-core-tables": branchCheckpointTables,
  "2026-11-22T0610-workflow-runs": workflowRuns,
  "2026-11-22T0630-graph-timeline-mcts": graphTimelineMctsTables,
};

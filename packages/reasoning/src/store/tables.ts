import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { BranchTable } from "./tables/branch.table.ts";
import type { CheckpointTable } from "./tables/checkpoint.table.ts";
import type { GraphEdgeTable } from "./tables/graph-edge.table.ts";
import type { GraphNodeTable } from "./tables/graph-node.table.ts";
import type { GraphTable } from "./tables/graph.table.ts";
import type { MctsNodeTable } from "./tables/mcts-node.table.ts";
import type { TimelineBranchTable } from "./tables/timeline-branch.table.ts";
import type { TimelineMergeTable } from "./tables/timeline-merge.table.ts";
import type { TimelineTable } from "./tables/timeline.table.ts";
import type { WorkflowRunTable } from "./tables/workflow-run.table.ts";

/** The reasoning module's tables (one file per table under tables/). */
export type ReasoningTables = {
  branches: BranchTable;
  checkpoints: CheckpointTable;
  graphs: GraphTable;
  graph_nodes: GraphNodeTable;
  graph_edges: GraphEdgeTable;
  timelines: TimelineTable;
  timeline_branches: TimelineBranchTable;
  timeline_merges: TimelineMergeTable;
  mcts_nodes: MctsNodeTable;
  workflow_runs: WorkflowRunTable;
};

/** A handle (database or open transaction) that sees the shared and the reasoning tables. */
export type DatabaseExecutor = Kysely<Database & ReasoningTables>;

import type { BranchTable } from "./tables/branch.table.ts";
import type { CheckpointTable } from "./tables/checkpoint.table.ts";
import type { GraphEdgeTable } from "./tables/graph-edge.table.ts";
import type { GraphNodeTable } from "./tables/graph-node.table.ts";
import type { GraphTable } from "./tables/graph.table.ts";
import type { MctsNodeTable } from "./tables/mcts-node.table.ts";
import type { TimelineBranchTable } from "./tables/timeline-branch.table.ts";
import type { TimelineMergeTable } from "./tables/timeline-merge.table.ts";
import type { TimelineTable } from "./tables/timeline.table.ts";
import type { InvocationTable } from "./tables/invocation.table.ts";
import type { JobTable } from "./tables/job.table.ts";
import type { ReasoningLogTable } from "./tables/reasoning-log.table.ts";
import type { SessionTable } from "./tables/session.table.ts";
import type { SuspendedCallTable } from "./tables/suspended-call.table.ts";
import type { WorkflowRunTable } from "./tables/workflow-run.table.ts";
import type { ThoughtTable } from "./tables/thought.table.ts";

/** The hand-written Kysely schema: one file per table under tables/. */
export interface Database {
  sessions: SessionTable;
  thoughts: ThoughtTable;
  branches: BranchTable;
  checkpoints: CheckpointTable;
  invocations: InvocationTable;
  graphs: GraphTable;
  graph_nodes: GraphNodeTable;
  graph_edges: GraphEdgeTable;
  timelines: TimelineTable;
  timeline_branches: TimelineBranchTable;
  timeline_merges: TimelineMergeTable;
  mcts_nodes: MctsNodeTable;
  suspended_calls: SuspendedCallTable;
  workflow_runs: WorkflowRunTable;
  reasoning_queue: JobTable;
  reasoning_logs: ReasoningLogTable;
}

import type { BranchTable } from "./tables/branch.table.ts";
import type { CheckpointTable } from "./tables/checkpoint.table.ts";
import type { InvocationTable } from "./tables/invocation.table.ts";
import type { SessionTable } from "./tables/session.table.ts";
import type { ThoughtTable } from "./tables/thought.table.ts";

/** The hand-written Kysely schema: one file per table under tables/. */
export interface Database {
  sessions: SessionTable;
  thoughts: ThoughtTable;
  branches: BranchTable;
  checkpoints: CheckpointTable;
  invocations: InvocationTable;
}

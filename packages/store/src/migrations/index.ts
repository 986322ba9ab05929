import type { Migration, MigrationProvider } from "kysely";
import { coreTables } from "./2026-11-22T0500-core-tables.ts";
import { graphTimelineMctsTables } from "./2026-11-22T0630-graph-timeline-mcts.ts";
import { suspendedCalls } from "./2026-11-22T0600-suspended-calls.ts";
import { workflowRuns } from "./2026-11-22T0610-workflow-runs.ts";
import { reasoningQueue } from "./2026-11-22T0700-reasoning-queue.ts";
import { suspendedCallClaims } from "./2026-11-22T0800-suspended-call-claims.ts";

/**
 * Every migration, keyed by a timestamped name (applied in name order).
 * Register new migrations here; never edit one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  "2026-11-22T0500-core-tables": coreTables,
  "2026-11-22T0630-graph-timeline-mcts": graphTimelineMctsTables,
  "2026-11-22T0600-suspended-calls": suspendedCalls,
  "2026-11-22T0610-workflow-runs": workflowRuns,
  "2026-11-22T0700-reasoning-queue": reasoningQueue,
  "2026-11-22T0800-suspended-call-claims": suspendedCallClaims,
};

export const inlineMigrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};

import type { Migration } from "kysely";
import { coreTables } from "./2026-11-22T0500-core-tables.ts";
import { suspendedCalls } from "./2026-11-22T0600-suspended-calls.ts";
import { suspendedCallClaims } from "./2026-11-22T0800-suspended-call-claims.ts";
import { invocationRounds } from "./2026-11-24T0900-invocation-rounds.ts";
import { sequencesAndLeases } from "./2026-11-24T1200-sequences-and-leases.ts";
import { invocationRollups } from "./2026-11-25T0900-invocation-rollups.ts";
import { invocationStartedAt } from "./2026-11-27T1700-invocation-started-at.ts";
import { thoughtCounts } from "./2026-11-27T2000-thought-counts.ts";

/**
 * The shared tables' migrations (sessions, thoughts, invocations, suspended
 * calls), keyed by timestamped name. Modules contribute their own; never edit
 * one that has shipped.
 */
export const baseMigrations: Readonly<Record<string, Migration>> = {
  "2026-11-22T0500-core-tables": coreTables,
  "2026-11-22T0600-suspended-calls": suspendedCalls,
  "2026-11-22T0800-suspended-call-claims": suspendedCallClaims,
  "2026-11-24T0900-invocation-rounds": invocationRounds,
  "2026-11-24T1200-sequences-and-leases": sequencesAndLeases,
  "2026-11-25T0900-invocation-rollups": invocationRollups,
  "2026-11-27T1700-invocation-started-at": invocationStartedAt,
  "2026-11-27T2000-thought-counts": thoughtCounts,
};

import type { Migration } from "kysely";
import { selfImprovementTables } from "./2026-11-24T1000-self-improvement-tables.ts";
import { leaderLeaseToStore } from "./2026-11-27T2000-leader-lease-to-store.ts";

/** The module's migrations, by timestamped name (applied per owner `self-improvement`). */
export const selfImprovementMigrations: Readonly<Record<string, Migration>> = {
  "2026-11-24T1000-self-improvement-tables": selfImprovementTables,
  "2026-11-27T2000-leader-lease-to-store": leaderLeaseToStore,
};

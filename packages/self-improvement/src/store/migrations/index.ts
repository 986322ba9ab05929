import type { Migration } from "kysely";
import { selfImprovementTables } from "./2026-11-24T1000-self-improvement-tables.ts";

/** The module's migrations, by timestamped name (applied per owner `self-improvement`). */
export const selfImprovementMigrations: Readonly<Record<string, Migration>> = {
  "2026-11-24T1000-self-improvement-tables": selfImprovementTables,
};

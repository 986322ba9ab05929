import type { Migration } from "kysely";
import { dialogTables } from "./2026-11-23T1000-dialog-tables.ts";
import { dialogGradedBy } from "./2026-11-27T1700-dialog-graded-by.ts";

/** The dialog module's migrations, by timestamped name; they run after the shared tables'. */
export const dialogMigrations: Record<string, Migration> = {
  "2026-11-23T1000-dialog-tables": dialogTables,
  "2026-11-27T1700-dialog-graded-by": dialogGradedBy,
};

import type { DialogAgentTable } from "./tables/dialog-agent.table.ts";
import type { DialogExchangeTable } from "./tables/dialog-exchange.table.ts";
import type { DialogIterationTable } from "./tables/dialog-iteration.table.ts";
import type { DialogSessionTable } from "./tables/dialog-session.table.ts";
import type { DialogSummaryTable } from "./tables/dialog-summary.table.ts";

/** The dialog module's own tables (hand-written Kysely schema, one file per table). */
export interface DialogDatabase {
  dialog_sessions: DialogSessionTable;
  dialog_agents: DialogAgentTable;
  dialog_exchanges: DialogExchangeTable;
  dialog_iterations: DialogIterationTable;
  dialog_summaries: DialogSummaryTable;
}

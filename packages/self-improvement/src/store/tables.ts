import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { ActionTable } from "./tables/action.table.ts";
import type { CycleTable } from "./tables/cycle.table.ts";
import type { DiagnosisTable } from "./tables/diagnosis.table.ts";
import type { LearningTable } from "./tables/learning.table.ts";
import type { OverrideTable } from "./tables/override.table.ts";
import type { StateTable } from "./tables/state.table.ts";
import type { ToolModeTable } from "./tables/tool-mode.table.ts";

/** The self-improvement module's tables (one file per table under tables/). */
export type SelfImprovementTables = {
  self_improvement_diagnoses: DiagnosisTable;
  self_improvement_actions: ActionTable;
  self_improvement_learnings: LearningTable;
  self_improvement_overrides: OverrideTable;
  self_improvement_state: StateTable;
  self_improvement_cycles: CycleTable;
  self_improvement_tool_modes: ToolModeTable;
};

/** A handle (database or open transaction) that sees the shared and the module's tables. */
export type DatabaseExecutor = Kysely<Database & SelfImprovementTables>;

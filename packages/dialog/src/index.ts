export { createDialogModule, dialogModule } from "./module.ts";
export { createDialogHandlers } from "./dialog-handlers.ts";
export { defaultContextBudgetTokens, defaultIdleTimeoutMinutes } from "./dialog-context.ts";
export type { DialogModuleOptions, DialogRepositories, DialogToolContext } from "./dialog-context.ts";
export { builtinPresets, presetByName } from "./presets/builtin-presets.ts";
export { definePreset, presetProblems } from "./presets/dialog-preset.ts";
export type { DialogPreset, RubricCriterion } from "./presets/dialog-preset.ts";
export { dialogModes } from "./module.ts";
export type { DialogModeDefinition, DialogModeId } from "./modes/dialog-mode.ts";
export { combineCriteria, combineReviews } from "./rubric.ts";
export { decideStopping } from "./stopping.ts";
export type { StoppingDecision, StoppingFacts, StoppingRules } from "./stopping.ts";
export { dialogMigrations } from "./store/migrations/index.ts";
export type { DialogDatabase } from "./store/dialog-database.ts";
export { createDialogSessionRepository } from "./store/dialog-session.repository.ts";
export type {
  DialogDirective,
  DialogExchangeRecord,
  DialogIterationRecord,
  DialogSession,
  DialogSessionRepository,
  DialogSummaryRecord,
  DialogTokens,
} from "./store/dialog-session.repository.ts";
export type { DialogSessionRecord } from "./render/dialog-record.ts";
export { dialogTranscriptMarkdown } from "./render/transcript-markdown.ts";
export { dialogSessionSection, readDialogSection } from "./render/dialog-session-section.ts";

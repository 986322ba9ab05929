export { createEngine } from "./engine.ts";
export type { DeliberateEngine, EngineOptions, HostPromptForm, SessionRecord, SessionRecordPage } from "./engine.ts";
export type { Engine, InvokeOptions, ProgressUpdate } from "./engine-types.ts";
export { createTaskRunner } from "./task-runner.ts";
export type { TaskRunner } from "./task-runner.ts";
export { composeModules, defineModule } from "./define-module.ts";
export type { BackgroundTaskContext, DeliberateModule, SessionSection } from "./define-module.ts";
export { systemClock } from "./clock.ts";
export type { Clock } from "./clock.ts";
export { createSequentialIds, randomIds } from "./ids.ts";
export type { IdGenerator } from "./ids.ts";
export type { ModeSettings, RuntimeSettingsSource } from "./mode-settings.ts";
export { defineMode } from "./mode-definition.ts";
export type { ModeDeclaration, ModeDefinition } from "./mode-definition.ts";
export { operationDefinerFor } from "./module-operation.ts";
export { defineModuleEnvironment, readEnvironmentVariables, reportEnvironment } from "./module-environment.ts";
export type { ModuleEnvironment } from "./module-environment.ts";
export type { ComposedOperation, ModuleOperation, OperationContext } from "./module-operation.ts";
export { defineHandler, handlerDefinerFor } from "./tool-handler.ts";
export type { InvocationFields, ToolHandler } from "./tool-handler.ts";
export type { ToolContext } from "./context.ts";
export { nowIso } from "./context.ts";
export { generateWithMode, runMode } from "./run-mode.ts";
export type { RunModeOptions } from "./run-mode.ts";
export { answerJsonSchema } from "./host/answer-json-schema.ts";
export { mapConcurrent } from "./concurrency.ts";
export { hostModelRouter } from "./host/host-router.ts";
export { CompletionNeeded } from "./host/completion-needed.ts";
export { isRejectedAnswer } from "./host/replay-router.ts";
export { exportSession, mermaidLabel, sessionExportMimeTypes, tableCell } from "./export/session-export.ts";
export type { SessionExportFormat } from "./export/session-export.ts";
export { streamedExportFormats } from "./export/session-export-stream.ts";
export type {
  SessionExportStream,
  SessionExportStreamOptions,
  StreamedExportFormat,
} from "./export/session-export-stream.ts";
export { loadModules } from "./load-modules.ts";
export { splitPromptList } from "./module-prompt.ts";
export type { ModulePrompt } from "./module-prompt.ts";

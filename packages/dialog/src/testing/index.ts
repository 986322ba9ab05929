export { migrateDialogTables } from "./dialog-tables.ts";
export { createDialogTestEngine, createTestClock, dialogHandlersForEngine, toDialogContext } from "./core-engine.ts";
export type { DialogTestEngine, TestClock } from "./core-engine.ts";
export { answerDialogPrompt, scriptedDialogResponder, turnOfPrompt } from "./scripted-dialog.ts";
export type { DialogPrompt, DialogScript, ScriptedTurn } from "./scripted-dialog.ts";

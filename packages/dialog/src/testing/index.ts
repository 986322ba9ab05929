export { createDialogTestEngine, createTestClock } from "./dialog-test-engine.ts";
export type { DialogTestEngine, DialogTestEngineOptions, TestClock } from "./dialog-test-engine.ts";
export { answerDialogPrompt, scriptedDialogResponder, turnOfPrompt } from "./scripted-dialog.ts";
export type { DialogPrompt, DialogScript, ScriptedTurn } from "./scripted-dialog.ts";

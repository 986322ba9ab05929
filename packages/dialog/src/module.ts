import { defineModule } from "@deliberate/engine";
import type { DialogModuleOptions, DialogRepositories } from "./dialog-context.ts";
import { createDialogHandlers } from "./dialog-handlers.ts";
import { mergerModeDeclaration, producerModeDeclaration } from "./modes/document.mode.ts";
import { reviewerModeDeclaration } from "./modes/review.mode.ts";
import { summariserModeDeclaration } from "./modes/summary.mode.ts";

import { dialogPrompts } from "./prompts/dialog-prompts.ts";
import { dialogSessionSection } from "./render/dialog-session-section.ts";
import { dialogStore } from "./store/contribution.ts";

/** The module's modes, each declared with its default settings where it is defined; the service may override them per mode, agents per agent. */
export const dialogModes = [
  producerModeDeclaration,
  mergerModeDeclaration,
  reviewerModeDeclaration,
  summariserModeDeclaration,
] as const;

/**
 * The dialog module: multi-agent reasoning sessions (start_reasoning_session,
 * run_reasoning_exchange, get_reasoning_result, list_reasoning_presets,
 * get_session_status), their four modes, their tables and their session section.
 */
export function createDialogModule(options: DialogModuleOptions = {}) {
  return defineModule<DialogRepositories>({
    name: "dialog",
    tools: createDialogHandlers(options),
    modes: dialogModes,
    ...dialogStore,
    sessionSections: [dialogSessionSection],
    prompts: dialogPrompts,
  });
}

/** The dialog module with the default idle timeout (24 hours) and context budget (32,000 tokens). */
export const dialogModule = createDialogModule();

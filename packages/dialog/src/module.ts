import { defineModule } from "@deliberate/engine";
import type { DialogModuleOptions, DialogRepositories } from "./dialog-context.ts";
import { createDialogHandlers } from "./dialog-handlers.ts";
import { dialogModeSettings } from "./modes/dialog-mode.ts";
import { dialogPrompts } from "./prompts/dialog-prompts.ts";
import { dialogSessionSection } from "./render/dialog-session-section.ts";
import { dialogStore } from "./store/contribution.ts";

/**
 * The dialog module: multi-agent reasoning sessions (start_reasoning_session,
 * run_reasoning_exchange, get_reasoning_result, list_reasoning_presets,
 * get_session_status), their four modes, their tables and their session section.
 */
export function createDialogModule(options: DialogModuleOptions = {}) {
  return defineModule<DialogRepositories>({
    name: "dialog",
    tools: createDialogHandlers(options),
    modes: dialogModeSettings,
    ...dialogStore,
    sessionSections: [dialogSessionSection],
    prompts: dialogPrompts,
  });
}

/** The dialog module with the default idle timeout (24 hours) and context budget (32,000 tokens). */
export const dialogModule = createDialogModule();

import { defineModule } from "@deliberate/engine";
import type { Kysely } from "kysely";
import type { DialogModuleOptions, DialogRepositories } from "./dialog-context.ts";
import { createDialogHandlers } from "./dialog-handlers.ts";
import { mergerModeDeclaration, producerModeDeclaration } from "./modes/document.mode.ts";
import { reviewerModeDeclaration } from "./modes/review.mode.ts";
import { summariserModeDeclaration } from "./modes/summary.mode.ts";

/** The module's modes, each declared with its default settings where it is defined; the service may override them per mode, agents per agent. */
export const dialogModes = [producerModeDeclaration, mergerModeDeclaration, reviewerModeDeclaration, summariserModeDeclaration] as const;
import { dialogPrompts } from "./prompts/dialog-prompts.ts";
import { dialogSessionSection } from "./render/dialog-session-section.ts";
import type { DialogDatabase } from "./store/dialog-database.ts";
import { createDialogSessionRepository } from "./store/dialog-session.repository.ts";
import { dialogMigrations } from "./store/migrations/index.ts";

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
    migrations: dialogMigrations,
    repositories: (db) => ({ dialogSessions: createDialogSessionRepository(db as unknown as Kysely<DialogDatabase>) }),
    sessionSections: [dialogSessionSection],
    prompts: dialogPrompts,
  });
}

/** The dialog module with the default idle timeout (24 hours) and context budget (32,000 tokens). */
export const dialogModule = createDialogModule();

import type { ToolContext } from "@deliberate/engine";
import type { DialogSessionRepository } from "./store/repositories/dialog-session.repository.ts";

/** The dialog module's repositories, merged into the engine's store (and into every transaction's). */
export interface DialogRepositories {
  readonly dialogSessions: DialogSessionRepository;
}

/** What a dialog tool's handler sees: the engine's context with the dialog repositories in `store`. */
export type DialogToolContext = ToolContext<DialogRepositories>;

/** Options of the dialog module (the service reads them from its configuration). */
export interface DialogModuleOptions {
  /** Minutes without activity after which a session expires (default 24 hours); sessions may set their own. */
  idleTimeoutMinutes?: number;
  /** Default prompt budget per agent call, in tokens (default 32,000); sessions may set their own. */
  contextBudgetTokens?: number;
}

export const defaultIdleTimeoutMinutes = 24 * 60;
export const defaultContextBudgetTokens = 32_000;

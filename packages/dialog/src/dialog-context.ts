import type { LanguageModel, Usage } from "@deliberate/providers";
import type { DialogModeId, DialogModeSettings } from "./modes/dialog-mode.ts";
import type { DialogSessionRepository } from "./store/dialog-session.repository.ts";

/** The shared-sessions operations the module needs (every dialog session is a session too). */
export interface SharedSessionRepository {
  create(input: { id: string; mode: string; now: string }): Promise<unknown>;
  touch(input: { id: string; now: string }): Promise<void>;
}

/** Repositories the handlers use, bound to the database or to a transaction. */
export interface DialogRepositories {
  readonly sessions: SharedSessionRepository;
  readonly dialogSessions: DialogSessionRepository;
}

/** The store as the handlers see it: repositories plus one transaction per state change. */
export interface DialogStore extends DialogRepositories {
  transaction<T>(work: (repositories: DialogRepositories) => Promise<T>): Promise<T>;
}

/** What one invocation spent on models (the engine turns it into the invocation row). */
export interface DialogUsage extends Usage {
  modelCalls: number;
  provider: string | null;
  model: string | null;
}

/**
 * Everything a dialog handler may touch: the engine's tool context, with the
 * module's repositories in the store. Handlers reach the world only through it,
 * so an exchange replays from the same inputs and model answers.
 */
export interface DialogToolContext {
  readonly store: DialogStore;
  readonly models: { forMode(mode: never): LanguageModel };
  readonly clock: { now(): Date };
  readonly ids: { next(prefix: string): string };
  readonly signal: AbortSignal;
  readonly progress: (update: { progress: number; total?: number; message?: string }) => void;
  readonly usage: DialogUsage;
  /** Most model calls in flight for independent turns. */
  readonly concurrency: number;
  /** The service's per-mode settings, when it overrides the module's defaults. */
  readonly settings?: Readonly<Partial<Record<DialogModeId, Partial<DialogModeSettings>>>>;
}

/** Options of the dialog module (the service reads them from its configuration). */
export interface DialogModuleOptions {
  /** Minutes without activity after which a session expires (default 24 hours); sessions may set their own. */
  idleTimeoutMinutes?: number;
  /** Default prompt budget per agent call, in tokens (default 32,000); sessions may set their own. */
  contextBudgetTokens?: number;
}

export const defaultIdleTimeoutMinutes = 24 * 60;
export const defaultContextBudgetTokens = 32_000;

import type { Session, Thought } from "@deliberate/contracts";
import type { ReasoningStoreRepositories as Repositories } from "./store/repositories.ts";
import type { ToolContext } from "@deliberate/engine";

/** How many earlier thoughts feed the next prompt, and how much of each. */
export const historyLimits = { thoughts: 8, charactersPerThought: 1500 } as const;

export interface SessionHistory {
  /** The existing session, or undefined when the call starts a new one. */
  session: Session | undefined;
  /** The id to use: the existing session's, or a fresh one (created on first write). */
  sessionId: string;
  /** Recent active thoughts, oldest first, bounded by historyLimits. */
  thoughts: Thought[];
}

/**
 * Loads the session a call continues (NOT_FOUND before any model call if the id
 * is unknown) and its bounded recent history.
 */
export async function loadSessionHistory(context: ToolContext, sessionId: string | undefined): Promise<SessionHistory> {
  if (sessionId === undefined) {
    return { session: undefined, sessionId: context.ids.next("ses"), thoughts: [] };
  }
  const session = await context.store.sessions.get(sessionId);
  const thoughts = await context.store.thoughts.recent(sessionId, historyLimits.thoughts);
  return { session, sessionId, thoughts };
}

/** Renders history for a prompt; empty string when there is none. */
export function formatHistory(thoughts: readonly Thought[]): string {
  if (thoughts.length === 0) return "";
  const lines = thoughts.map((thought, index) => {
    const text = thought.content.length > historyLimits.charactersPerThought ? `${thought.content.slice(0, historyLimits.charactersPerThought)}…` : thought.content;
    return `${index + 1}. [${thought.mode}] ${text}`;
  });
  return `Earlier reasoning in this session (oldest first):\n${lines.join("\n")}\n\n`;
}

/** Creates the session inside the caller's transaction when the call started a new one. */
export async function ensureSession(repositories: Repositories, history: SessionHistory, mode: string, now: string): Promise<void> {
  if (history.session === undefined) {
    await repositories.sessions.create({ id: history.sessionId, mode, now });
  } else {
    await repositories.sessions.touch({ id: history.sessionId, now });
  }
}

import type { Session, Thought } from "@deliberate/contracts";
import type { ModelMessage } from "@deliberate/providers";
import type { ReasoningStoreRepositories as Repositories } from "./store/contribution.ts";
import type { ToolContext } from "@deliberate/engine";

/**
 * How much earlier reasoning feeds the next prompt. The window starts on a
 * page boundary and moves a whole page at a time, so consecutive calls of a
 * session send the same leading messages (a prefix the provider's prompt
 * cache can serve): at least `thoughts` and fewer than `thoughts + page`
 * thoughts, each cut at `charactersPerThought`.
 */
export const historyLimits = { thoughts: 8, page: 8, charactersPerThought: 1500 } as const;

export interface SessionHistory {
  /** The existing session, or undefined when the call starts a new one. */
  session: Session | undefined;
  /** The id to use: the existing session's, or a fresh one (created on first write). */
  sessionId: string;
  /** Recent active thoughts, oldest first, within the history window. */
  thoughts: Thought[];
  /** The step number (1-based, among the session's active thoughts) of the first thought in `thoughts`. */
  firstStep: number;
}

/** Where the history window of a session with `count` active thoughts starts (0-based). */
export function historyWindowStart(count: number): number {
  if (count <= historyLimits.thoughts) return 0;
  return Math.floor((count - historyLimits.thoughts) / historyLimits.page) * historyLimits.page;
}

/**
 * Loads the session a call continues (NOT_FOUND before any model call if the id
 * is unknown) and its bounded recent history.
 */
export async function loadSessionHistory(context: ToolContext, sessionId: string | undefined): Promise<SessionHistory> {
  if (sessionId === undefined) {
    return { session: undefined, sessionId: context.ids.next("ses"), thoughts: [], firstStep: 1 };
  }
  const session = await context.store.sessions.get(sessionId);
  const count = await context.store.thoughts.count(sessionId, { activeOnly: true });
  const start = historyWindowStart(count);
  const thoughts = count === 0 ? [] : await context.store.thoughts.recent(sessionId, count - start);
  return { session, sessionId, thoughts, firstStep: start + 1 };
}

function clipThought(content: string): string {
  return content.length > historyLimits.charactersPerThought
    ? `${content.slice(0, historyLimits.charactersPerThought)}…`
    : content;
}

/** The heading message of a history; stable, so it is part of the cached prefix. */
export const historyHeading = "Earlier reasoning in this session, oldest first (context for the request that follows):";

/**
 * The session's history as messages for runMode: a heading, then one message
 * per thought ("Step N [mode]: text"). Each message's text depends only on
 * the stored thought and its step number, so the next call of the session
 * repeats them exactly and the provider can read them from its cache.
 */
export function historyMessages(history: Pick<SessionHistory, "thoughts" | "firstStep">): ModelMessage[] {
  if (history.thoughts.length === 0) return [];
  return [
    { role: "user", content: historyHeading },
    ...history.thoughts.map(
      (thought, index): ModelMessage => ({
        role: "user",
        content: `Step ${history.firstStep + index} [${thought.mode}]: ${clipThought(thought.content)}`,
      }),
    ),
  ];
}

/** Renders thoughts as one numbered text (a transcript to assess, not context); empty string when there are none. */
export function formatHistory(thoughts: readonly Thought[]): string {
  if (thoughts.length === 0) return "";
  const lines = thoughts.map((thought, index) => `${index + 1}. [${thought.mode}] ${clipThought(thought.content)}`);
  return `Earlier reasoning in this session (oldest first):\n${lines.join("\n")}\n\n`;
}

/** Creates the session inside the caller's transaction when the call started a new one. */
export async function ensureSession(
  repositories: Repositories,
  history: SessionHistory,
  mode: string,
  now: string,
): Promise<void> {
  if (history.session === undefined) {
    await repositories.sessions.create({ id: history.sessionId, mode, now });
  } else {
    await repositories.sessions.touch({ id: history.sessionId, now });
  }
}

import { pageSessionRecord, type SessionPage, type SessionPageQuery, type Thought } from "@deliberate/contracts";
import type { EngineCore } from "./core.ts";
import type { SessionRecord } from "./read-session.ts";

/** One page of a session record: every list cut to the same window, and where the page stands. */
export type SessionRecordPage = SessionRecord & { page: SessionPage };

/**
 * One window of a session (what REST reads and the windowed resources serve):
 * equal to `pageSessionRecord(await readSession(id), window)`, but the thoughts,
 * the list that grows without bound, are read as the page alone (by position,
 * with the session's size from its count), so a page of a 100,000-thought session
 * costs what its items cost. Module sections are read whole and cut, as before.
 */
export async function readSessionPage(
  core: EngineCore,
  sessionId: string,
  window: SessionPageQuery,
): Promise<SessionRecordPage> {
  const { store, composition } = core;
  const session = await store.sessions.get(sessionId);
  const [thoughts, ...sections] = await Promise.all([
    store.thoughts.window(sessionId, window),
    ...composition.sections.map((section) => section.read(store, sessionId)),
  ]);
  const recorded: Record<string, unknown> = {};
  composition.sections.forEach((section, index) => {
    if (sections[index] !== undefined) recorded[section.name] = sections[index];
  });
  const { page: sectionsPage, ...cut } = pageSessionRecord(recorded, window);
  const totals = { thoughts: thoughts.total, ...sectionsPage.totals };
  const end = window.offset + window.limit;
  const more = Object.values(totals).some((total) => total > end);
  return {
    session,
    thoughts: thoughts.thoughts as Thought[],
    ...cut,
    page: { offset: window.offset, limit: window.limit, totals, next_offset: more ? end : null },
  };
}

/** One window of a session's thoughts alone (REST's /thoughts): the thoughts page and where it stands. */
export interface ThoughtRecordPage {
  session_id: string;
  thoughts: Thought[];
  page: SessionPage;
}

/** The thoughts `[offset, offset + limit)` of a session, read as the page alone; NOT_FOUND naming session_id when unknown. */
export async function readThoughtPage(
  core: EngineCore,
  sessionId: string,
  window: SessionPageQuery,
): Promise<ThoughtRecordPage> {
  const session = await core.store.sessions.get(sessionId);
  const { thoughts, total } = await core.store.thoughts.window(sessionId, window);
  const end = window.offset + window.limit;
  return {
    session_id: session.id,
    thoughts: thoughts as Thought[],
    page: {
      offset: window.offset,
      limit: window.limit,
      totals: { thoughts: total },
      next_offset: total > end ? end : null,
    },
  };
}

import type { Session, Thought } from "@deliberate/contracts";
import type { EngineCore } from "./core.ts";

/**
 * A session with everything recorded in it (for resources, exports and REST):
 * the shared session and thoughts, plus one key per module section that has data.
 */
export interface SessionRecord {
  session: Session;
  thoughts: Thought[];
  [section: string]: unknown;
}

/** Reads a session, its thoughts and every module section that has data for it; NOT_FOUND when unknown. */
export async function readSession(core: EngineCore, sessionId: string): Promise<SessionRecord> {
  const { store, composition } = core;
  const session = await store.sessions.get(sessionId);
  const [thoughts, ...sections] = await Promise.all([
    store.thoughts.listBySession(sessionId),
    ...composition.sections.map((section) => section.read(store, sessionId)),
  ]);
  const record: SessionRecord = { session, thoughts: thoughts as Thought[] };
  composition.sections.forEach((section, index) => {
    if (sections[index] !== undefined) record[section.name] = sections[index];
  });
  return record;
}

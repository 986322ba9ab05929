import type { DeliberateEngine } from "@deliberate/engine";
import type { ViewerDataSource } from "./viewer-data.ts";
import { createViewerRoutes, type ViewerHandler, type ViewerRoutesOptions } from "./viewer-routes.ts";

/**
 * The viewer's data, read from an engine: sessions listed through the store's
 * search, records through `readSession` (every composed module's sections),
 * invocations from the shared table. Read-only.
 */
export function engineViewerSource(engine: DeliberateEngine): ViewerDataSource {
  return {
    listSessions: (query) => engine.store.sessions.search(query),
    readSession: (sessionId) => engine.readSession(sessionId),
    listInvocations: (sessionId) => engine.store.invocations.list({ sessionId, limit: 1000 }),
  };
}

/** The viewer mounted over an engine, as both services serve it (the same options, the same data). */
export function createEngineViewer(
  engine: DeliberateEngine,
  options: Omit<ViewerRoutesOptions, keyof ViewerDataSource> = {},
): ViewerHandler {
  return createViewerRoutes({
    ...engineViewerSource(engine),
    filterOptions: { tools: engine.tools.map((tool) => tool.name) },
    ...options,
  });
}

import { exportSession, sessionExportMimeTypes, type SessionExportFormat, type SessionRecord, type SessionSection } from "@deliberate/engine";
import type { Session } from "@deliberate/contracts";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/server";

/** What the resources read: the engine's session access. */
export interface SessionReader {
  readSession(sessionId: string): Promise<SessionRecord>;
  listSessions(limit: number): Promise<Session[]>;
  /** The composed modules' session sections, which render their parts of an export. */
  readonly sections: readonly SessionSection[];
}

/** How many recent sessions `resources/list` shows per format. */
const listedSessions = 50;

const formats: ReadonlyArray<{ format: SessionExportFormat; suffix: string; title: string }> = [
  { format: "json", suffix: "", title: "Session (JSON)" },
  { format: "markdown", suffix: "/markdown", title: "Session transcript (Markdown)" },
  { format: "mermaid", suffix: "/mermaid", title: "Session diagram (Mermaid)" },
];

/**
 * Exposes every session as resources: `deliberate://sessions/{session_id}`
 * (JSON), `…/markdown` and `…/mermaid`. The recent ones are listed; any id can be read.
 */
/** `viewerUrl`: the viewer's base URL when it is served (HTTP transport); Markdown exports link to it. */
export function registerSessionResources(server: McpServer, sessions: SessionReader, viewerUrl?: string): void {
  for (const { format, suffix, title } of formats) {
    const mimeType = sessionExportMimeTypes[format];
    const template = new ResourceTemplate(`deliberate://sessions/{session_id}${suffix}`, {
      list: async () => ({
        resources: (await sessions.listSessions(listedSessions)).map((session) => ({
          uri: `deliberate://sessions/${session.id}${suffix}`,
          name: `${session.id}${suffix}`,
          title: `${title}: ${session.mode}, updated ${session.updated_at}`,
          mimeType,
        })),
      }),
    });
    server.registerResource(`session-${format}`, template, { title, mimeType, description: `A reasoning session exported as ${format}` }, async (uri, variables) => {
      const sessionId = String(variables["session_id"]);
      const record = await sessions.readSession(sessionId);
      return { contents: [{ uri: uri.href, mimeType, text: exportSession(record, format, sessions.sections, viewerUrl !== undefined ? { viewerUrl: `${viewerUrl}/sessions/${encodeURIComponent(sessionId)}` } : {}) }] };
    });
  }
}

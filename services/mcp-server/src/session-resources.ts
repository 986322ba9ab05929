import { databaseRetryAfterSeconds, isTransientDatabaseFault } from "@deliberate/base";
import {
  DeliberateError,
  nulCharacterMessage,
  type Session,
  type SessionPageQuery,
  sessionPageQuerySchema,
  toFieldIssues,
} from "@deliberate/contracts";
import {
  exportSession,
  sessionExportMimeTypes,
  type SessionExportFormat,
  type SessionExportStream,
  type SessionExportStreamOptions,
  type SessionRecord,
  type SessionRecordPage,
  type SessionSection,
  type StreamedExportFormat,
} from "@deliberate/engine";
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type Resource,
} from "@modelcontextprotocol/server";
import type { AppViewResources } from "./app-view-resources.ts";
import type { Logger } from "./logger.ts";
import { newErrorId } from "./tool-result.ts";

/** What the resources read: the engine's session access. */
export interface SessionReader {
  readSession(sessionId: string): Promise<SessionRecord>;
  /** One window of a session (`pageSessionRecord` of it), read as the page. */
  readSessionPage(sessionId: string, window: SessionPageQuery): Promise<SessionRecordPage>;
  /** The whole session as Markdown or JSON, a page of thoughts at a time. */
  openSessionExport(sessionId: string, options: SessionExportStreamOptions): Promise<SessionExportStream>;
  listSessions(limit: number): Promise<Session[]>;
  /** The composed modules' session sections, which render their parts of an export. */
  readonly sections: readonly SessionSection[];
}

/** How many sessions one `resources/list` page covers (each as JSON, Markdown and Mermaid). */
export const sessionsPerListPage = 50;

const formats: ReadonlyArray<{ format: SessionExportFormat; suffix: string; title: string }> = [
  { format: "json", suffix: "", title: "Session (JSON)" },
  { format: "markdown", suffix: "/markdown", title: "Session transcript (Markdown)" },
  { format: "mermaid", suffix: "/mermaid", title: "Session diagram (Mermaid)" },
];

/** The whole-session exports: every thought in one read (no window), Markdown or JSON. */
const exports: ReadonlyArray<{ format: StreamedExportFormat; file: string; title: string }> = [
  { format: "markdown", file: "export.md", title: "Whole session transcript (Markdown)" },
  { format: "json", file: "export.json", title: "Whole session record (JSON)" },
];

/** The URI templates of the session resources (`resources/templates/list`); each takes a `session_id`. */
export const sessionResourceTemplates: readonly string[] = [
  ...formats.map(({ suffix }) => `deliberate://sessions/{session_id}${suffix}{?limit,offset}`),
  ...exports.map(({ file }) => `deliberate://sessions/{session_id}/${file}`),
];

const sessionUri = /^deliberate:\/\/sessions\/([^/?#]+)(\/markdown|\/mermaid)?(?:\?([^#]*))?$/;
const exportUri = /^deliberate:\/\/sessions\/([^/?#]+)\/export\.(md|json)(?:\?([^#]*))?$/;

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString("base64url");
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  try {
    const offset = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { offset?: unknown }).offset;
    if (typeof offset === "number" && Number.isSafeInteger(offset) && offset >= 0) return offset;
  } catch {
    // falls through to the error below
  }
  throw new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    "Invalid params: cursor: not a cursor this server returned; start again without one",
    { field: "cursor" },
  );
}

/** An invalid-params error naming `field`, with the same body as a tool's INVALID_INPUT (`data`). */
function invalidParams(field: string, message: string): ProtocolError {
  const issues = [{ field, message }];
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${field}: ${message}`, {
    code: "INVALID_INPUT",
    issues,
  });
}

/** The session id of a resource URI, decoded; bad percent-encoding or U+0000 is invalid params naming session_id. */
function sessionIdOf(encoded: string): string {
  let sessionId: string;
  try {
    sessionId = decodeURIComponent(encoded);
  } catch {
    throw invalidParams("session_id", `'${encoded}' is not valid percent-encoding (UTF-8 bytes as %XX)`);
  }
  if (sessionId.includes("\0")) throw invalidParams("session_id", nulCharacterMessage);
  return sessionId;
}

/** The window `?limit&offset` asks for; invalid params naming the field otherwise. */
function windowOf(query: URLSearchParams): SessionPageQuery {
  const parsed = sessionPageQuerySchema.safeParse(Object.fromEntries(query));
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
      { issues },
    );
  }
  return parsed.data;
}

/** A windowed session export, with a footer saying which slice it is when the session is larger. */
function render(
  paged: SessionRecordPage,
  format: SessionExportFormat,
  sessions: SessionReader,
  viewerUrl: string | undefined,
): string {
  const { page, ...windowed } = paged;
  if (format === "json") return JSON.stringify(paged);
  const sessionId = paged.session.id;
  const text = exportSession(windowed as SessionRecord, format, sessions.sections, {
    firstThoughtNumber: page.offset + 1,
    ...(viewerUrl !== undefined ? { viewerUrl: viewerPage(viewerUrl, sessionId) } : {}),
  });
  const partial = page.next_offset !== null || page.offset > 0;
  if (!partial) return text;
  const thoughts = page.totals["thoughts"] ?? 0;
  const first = Math.min(page.offset + 1, thoughts);
  const last = Math.min(page.offset + page.limit, thoughts);
  const next = page.next_offset === null ? "" : ` Next page: ?limit=${page.limit}&offset=${page.next_offset}.`;
  const note = `Showing items ${page.offset + 1}-${page.offset + page.limit} of each list (thoughts ${first}-${last} of ${thoughts}).${next}`;
  return format === "markdown" ? `${text}\n\n_${note}_\n` : `${text}\n%% ${note}\n`;
}

const viewerPage = (viewerUrl: string, sessionId: string) => `${viewerUrl}/sessions/${encodeURIComponent(sessionId)}`;

/** A whole-session export, read a page of thoughts at a time and returned as one text (a resource read has no streaming). */
async function exportText(
  sessions: SessionReader,
  sessionId: string,
  format: StreamedExportFormat,
  viewerUrl: string | undefined,
): Promise<string> {
  const stream = await sessions.openSessionExport(sessionId, {
    format,
    ...(format === "markdown" && viewerUrl !== undefined ? { viewerUrl: viewerPage(viewerUrl, sessionId) } : {}),
  });
  const chunks: string[] = [];
  for await (const chunk of stream.chunks()) chunks.push(chunk);
  return chunks.join("");
}

/**
 * What a failed session read answers: the SDK's resource-not-found for an unknown
 * session, a retryable STORAGE error while the database is away, otherwise an
 * internal error naming only an error id (the cause goes to the log).
 */
function readFailure(error: unknown, uri: string, logger: Logger): Error {
  if (DeliberateError.isInstance(error) && error.code === "NOT_FOUND") return new ResourceNotFoundError(uri);
  if (error instanceof ProtocolError) return error;
  const errorId = newErrorId();
  if (isTransientDatabaseFault(error)) {
    // The database is away for the moment: say so, and that the same read may pass shortly.
    logger.warn("session resource read refused: the database is unavailable", { uri, error_id: errorId, error });
    return new ProtocolError(
      ProtocolErrorCode.InternalError,
      `The database is unavailable for the moment (error ${errorId}); retry after ${databaseRetryAfterSeconds} s.`,
      {
        code: "STORAGE",
        retryable: true,
        retry_after_seconds: databaseRetryAfterSeconds,
        error_id: errorId,
      },
    );
  }
  logger.error("session resource read failed", { uri, error_id: errorId, error });
  return new ProtocolError(
    ProtocolErrorCode.InternalError,
    `The server failed to read the session (error ${errorId}); the details are in its log.`,
    { error_id: errorId },
  );
}

/** The text of a session resource (`uri` already matched one of the session URI forms). */
async function readSessionResource(
  uri: string,
  sessions: SessionReader,
  viewerUrl: string | undefined,
): Promise<{ uri: string; mimeType: string; text: string }> {
  const whole = exportUri.exec(uri);
  if (whole) {
    const sessionId = sessionIdOf(whole[1] as string);
    if ((whole[3] ?? "") !== "") {
      throw invalidParams(
        "uri",
        `export.${whole[2]} is the whole session and takes no query; window a session with deliberate://sessions/{session_id}/markdown?limit=&offset= instead`,
      );
    }
    const format: StreamedExportFormat = whole[2] === "md" ? "markdown" : "json";
    return {
      uri,
      mimeType: sessionExportMimeTypes[format],
      text: await exportText(sessions, sessionId, format, viewerUrl),
    };
  }
  const match = sessionUri.exec(uri) as RegExpExecArray;
  const sessionId = sessionIdOf(match[1] as string);
  const format = formats.find(({ suffix }) => suffix === (match[2] ?? "")) ?? (formats[0] as (typeof formats)[number]);
  const window = windowOf(new URLSearchParams(match[3] ?? ""));
  const paged = await sessions.readSessionPage(sessionId, window);
  return {
    uri,
    mimeType: sessionExportMimeTypes[format.format],
    text: render(paged, format.format, sessions, viewerUrl),
  };
}

/**
 * Exposes every session as resources: `deliberate://sessions/{session_id}`
 * (JSON), `…/markdown` and `…/mermaid`, each taking `?limit=&offset=` (every
 * list in the session is cut to that window; default 100 items, at most 1,000;
 * the thoughts are read as the window alone). `…/export.md` and `…/export.json`
 * are the whole session in one read (read a page of thoughts at a time, returned
 * as one text: a resource read has no streaming), listed as templates only.
 * `resources/list` pages through the sessions, newest first, with a cursor.
 * An unknown session is the SDK's resource-not-found error. The list is not
 * announced as changing (`listChanged: false`): clients list again when they need to.
 * `viewerUrl`: the viewer's base URL when it is served (HTTP transport); Markdown exports link to it.
 * `views`: the in-chat views (MCP Apps `ui://` documents), listed first and read here too.
 */
export function registerSessionResources(
  server: McpServer,
  sessions: SessionReader,
  logger: Logger,
  viewerUrl?: string,
  views?: AppViewResources,
): void {
  const protocol = server.server;
  protocol.registerCapabilities({ resources: { listChanged: false } });

  protocol.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [
      ...formats.map(({ format, suffix, title }) => ({
        name: `session-${format}`,
        uriTemplate: `deliberate://sessions/{session_id}${suffix}{?limit,offset}`,
        title,
        description: `A reasoning session exported as ${format}; limit / offset window its lists (default 100 items)`,
        mimeType: sessionExportMimeTypes[format],
      })),
      ...exports.map(({ format, file, title }) => ({
        name: `session-export-${format}`,
        uriTemplate: `deliberate://sessions/{session_id}/${file}`,
        title,
        description: `The whole session as ${format} in one read: every thought, no window (the HTTP API's GET /v1/sessions/{session_id}/export streams the same text)`,
        mimeType: sessionExportMimeTypes[format],
      })),
    ],
  }));

  protocol.setRequestHandler("resources/list", async (request) => {
    const offset = decodeCursor(request.params?.cursor);
    // One more than a page tells whether another page follows.
    const listed = await sessions.listSessions(offset + sessionsPerListPage + 1);
    const page = listed.slice(offset, offset + sessionsPerListPage);
    const resources: Resource[] = page.flatMap((session) =>
      formats.map(({ format, suffix, title }) => ({
        uri: `deliberate://sessions/${session.id}${suffix}`,
        name: `${session.id}${suffix}`,
        title: `${title}: ${session.mode}, updated ${session.updated_at}`,
        mimeType: sessionExportMimeTypes[format],
      })),
    );
    // The in-chat views' documents come first, on the first page.
    const viewResources = offset === 0 && views ? views.list() : [];
    return {
      resources: [...viewResources, ...resources],
      ...(listed.length > offset + sessionsPerListPage
        ? { nextCursor: encodeCursor(offset + sessionsPerListPage) }
        : {}),
    };
  });

  protocol.setRequestHandler("resources/read", async (request) => {
    const uri = request.params.uri;
    const view = views?.read(uri);
    if (view) return { contents: [view] };
    if (!sessionUri.test(uri) && !exportUri.test(uri)) throw new ResourceNotFoundError(uri);
    try {
      return { contents: [await readSessionResource(uri, sessions, viewerUrl)] };
    } catch (error) {
      throw readFailure(error, uri, logger);
    }
  });
}

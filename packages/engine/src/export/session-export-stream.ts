import type { Session, Thought } from "@deliberate/contracts";
import type { SessionSection } from "../define-module.ts";
import type { EngineCore } from "../engine/core.ts";
import {
  markdownHeaderLines,
  markdownNoThoughtLines,
  markdownSectionLines,
  markdownThoughtLines,
  sessionExportMimeTypes,
} from "./session-export.ts";

/** The formats a session streams in: the same text `exportSession` renders for them. */
export const streamedExportFormats = ["markdown", "json"] as const;
export type StreamedExportFormat = (typeof streamedExportFormats)[number];

/** Thoughts read per page when streaming (the largest page a session read serves). */
export const defaultExportPageSize = 1000;

export interface SessionExportStreamOptions {
  format: StreamedExportFormat;
  /** The viewer's page for this session, linked from the Markdown header (as `exportSession`'s option). */
  viewerUrl?: string;
  /** Thoughts read and rendered per chunk; default {@link defaultExportPageSize}. */
  pageSize?: number;
}

/**
 * A session export being streamed: opened (the session found, its size and
 * module sections read), its text produced chunk by chunk as it is pulled.
 */
export interface SessionExportStream {
  readonly session: Session;
  readonly format: StreamedExportFormat;
  /** `text/markdown` or `application/json`. */
  readonly mimeType: string;
  /** The thoughts the export holds: those recorded when it opened (later appends are left for the next export). */
  readonly thoughtCount: number;
  /**
   * The text, one chunk per page of thoughts (plus the header and the sections),
   * read only as the consumer asks for the next chunk; stopping early (`return()`,
   * a `break`) reads nothing more. Joined, exactly `exportSession`'s text for the
   * session as it was when the export opened. Iterate once.
   */
  chunks(): AsyncGenerator<string, void, undefined>;
}

interface ExportParts {
  session: Session;
  /** The module sections with data, in composition order (as in a session record). */
  sections: Record<string, unknown>;
  lastPosition: number | null;
  pageSize: number;
}

/**
 * Opens a streamed export: NOT_FOUND naming session_id before anything is
 * produced when the session is unknown. Memory stays that of one page of
 * thoughts (plus the module sections, read whole) whatever the session's size.
 */
export async function openSessionExport(
  core: EngineCore,
  sessionId: string,
  options: SessionExportStreamOptions,
): Promise<SessionExportStream> {
  const { store, composition } = core;
  const session = await store.sessions.get(sessionId);
  const [extent, ...read] = await Promise.all([
    store.thoughts.extent(sessionId),
    ...composition.sections.map((section) => section.read(store, sessionId)),
  ]);
  const sections: Record<string, unknown> = {};
  composition.sections.forEach((section, index) => {
    if (read[index] !== undefined) sections[section.name] = read[index];
  });
  const pageSize = options.pageSize ?? defaultExportPageSize;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1)
    throw new RangeError(`pageSize must be a whole number >= 1 (got ${pageSize})`);
  const parts: ExportParts = { session, sections, lastPosition: extent.lastPosition, pageSize };
  let started = false;
  return {
    session,
    format: options.format,
    mimeType: sessionExportMimeTypes[options.format],
    thoughtCount: extent.total,
    chunks() {
      if (started) throw new Error("a session export streams once; open another to read it again");
      started = true;
      return options.format === "markdown" ? markdownChunks(core, parts, options.viewerUrl) : jsonChunks(core, parts);
    },
  };
}

/** The session's thoughts page by page (keyset on position, bounded by the last position when the export opened). */
async function* thoughtPages(core: EngineCore, parts: ExportParts): AsyncGenerator<Thought[], void, undefined> {
  const through = parts.lastPosition;
  if (through === null) return;
  let after: number | null = null;
  for (;;) {
    const page = await core.store.thoughts.after(parts.session.id, {
      afterPosition: after,
      throughPosition: through,
      limit: parts.pageSize,
    });
    if (page.lastPosition === null) return;
    yield page.thoughts;
    if (page.lastPosition >= through) return;
    after = page.lastPosition;
  }
}

// Each chunk below is its lines, each after a "\n": joined they give `lines.join("\n")` of the whole export.
const joinedAfterNewlines = (lines: readonly string[]): string => (lines.length === 0 ? "" : `\n${lines.join("\n")}`);

async function* markdownChunks(
  core: EngineCore,
  parts: ExportParts,
  viewerUrl: string | undefined,
): AsyncGenerator<string, void, undefined> {
  yield markdownHeaderLines(parts.session, viewerUrl !== undefined ? { viewerUrl } : {}).join("\n");
  let number = 0;
  for await (const thoughts of thoughtPages(core, parts)) {
    let chunk = "";
    for (const thought of thoughts) {
      number += 1;
      chunk += joinedAfterNewlines(markdownThoughtLines(thought, number));
    }
    yield chunk;
  }
  const closing = [
    ...(number === 0 ? markdownNoThoughtLines : []),
    ...markdownSectionLines(parts.sections, sectionsOf(core)),
  ];
  if (closing.length > 0) yield joinedAfterNewlines(closing);
}

const sectionsOf = (core: EngineCore): readonly SessionSection[] => core.composition.sections;

/** `JSON.stringify(value, null, 2)` placed at `indent` (its inner lines shifted right). */
const indented = (value: unknown, indent: string): string =>
  JSON.stringify(value, null, 2).replaceAll("\n", `\n${indent}`);

/** `JSON.stringify(record, null, 2)` of `{ session, thoughts, ...sections }`, a page of thoughts at a time. */
async function* jsonChunks(core: EngineCore, parts: ExportParts): AsyncGenerator<string, void, undefined> {
  yield `{\n  "session": ${indented(parts.session, "  ")},\n  "thoughts": [`;
  let any = false;
  for await (const thoughts of thoughtPages(core, parts)) {
    if (thoughts.length === 0) continue;
    // The page as one array ("[\n  {...},\n  {...}\n]"), its items moved in by two spaces to sit in the record:
    // one native stringify per page rather than one per thought. (JSON escapes line breaks in strings.)
    const items = JSON.stringify(thoughts, null, 2).slice(1, -2).replaceAll("\n", "\n  ");
    yield any ? `,${items}` : items;
    any = true;
  }
  let closing = any ? "\n  ]" : "]";
  for (const [name, data] of Object.entries(parts.sections)) {
    const text = JSON.stringify(data, null, 2);
    // As JSON.stringify leaves out a property whose value has no JSON form.
    if (text !== undefined) closing += `,\n  ${JSON.stringify(name)}: ${text.replaceAll("\n", "\n  ")}`;
  }
  yield `${closing}\n}`;
}

import { DeliberateError, pageSessionRecord } from "@deliberate/contracts";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import type { Store } from "@deliberate/store";
import { testDialects, useTestStores } from "@deliberate/store/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type NotesRepositories, notesModule } from "../../test/fixtures/notes-module.ts";
import {
  createEngine,
  type DeliberateEngine,
  exportSession,
  type SessionExportStream,
  streamedExportFormats,
} from "../index.ts";

const now = "2026-11-22T10:00:00.000Z";

interface Shape {
  thoughts: number;
  /** Indexes after which a failed append outside a transaction leaves a hole in the positions. */
  holesAfter?: readonly number[];
  superseded?: readonly number[];
  notes?: number;
}

async function seed(store: Store<NotesRepositories>, sessionId: string, shape: Shape): Promise<void> {
  await store.sessions.create({ id: sessionId, mode: "linear", now });
  for (let index = 0; index < shape.thoughts; index += 1) {
    await store.thoughts.append({
      id: `${sessionId}-t${index}`,
      session_id: sessionId,
      parent_id: index > 0 ? `${sessionId}-t${index - 1}` : null,
      branch_id: index % 5 === 4 ? "b1" : null,
      mode: index % 2 === 0 ? "linear" : "reflection",
      content: `Thought ${index}: "quoted", a\nsecond line, \\ and a tab\t.`,
      confidence: index % 3 === 0 ? null : 0.1 * (index % 10),
      metadata: index % 2 === 0 ? {} : { index, nested: { list: [1, "two"] } },
      created_at: now,
    });
    if (shape.holesAfter?.includes(index)) {
      await expect(
        store.thoughts.append({
          id: `${sessionId}-t${index}`,
          session_id: sessionId,
          mode: "linear",
          content: "again",
          created_at: now,
        }),
      ).rejects.toThrow();
    }
  }
  const superseded = new Set(shape.superseded ?? []);
  if (superseded.size > 0) {
    const kept = Array.from({ length: shape.thoughts }, (_, index) => index).filter((index) => !superseded.has(index));
    await store.thoughts.supersedeExcept(
      sessionId,
      kept.map((index) => `${sessionId}-t${index}`),
    );
  }
  for (let index = 0; index < (shape.notes ?? 0); index += 1) {
    await store.notes.insert({
      id: `${sessionId}-n${index}`,
      session_id: sessionId,
      topic: "t",
      note: `note ${index}`,
      created_at: now,
    });
  }
}

async function collect(stream: SessionExportStream): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream.chunks()) chunks.push(chunk);
  return chunks;
}

const shapes: Record<string, Shape> = {
  empty: { thoughts: 0 },
  one: { thoughts: 1 },
  "with sections": { thoughts: 7, notes: 3, superseded: [1, 2] },
  "with holes": { thoughts: 25, holesAfter: [0, 11, 24], notes: 1 },
  "only sections": { thoughts: 0, notes: 2 },
};

describe.each(testDialects)("streamed session export on %s", (dialect) => {
  const open = useTestStores<NotesRepositories>(dialect, { modules: [notesModule] });

  async function engineWith(
    shape: Record<string, Shape>,
  ): Promise<{ engine: DeliberateEngine; store: Store<NotesRepositories> }> {
    const store = await open();
    for (const [sessionId, each] of Object.entries(shape)) await seed(store, sessionId, each);
    return {
      store,
      engine: createEngine({
        store,
        modules: [notesModule],
        models: createModelRouterFromModel(createScriptedModel([])),
      }),
    };
  }

  it("streams exactly exportSession's Markdown and JSON, one chunk per page, at every page size", async () => {
    const { engine } = await engineWith(shapes);
    for (const sessionId of Object.keys(shapes)) {
      const record = await engine.readSession(sessionId);
      for (const format of streamedExportFormats) {
        for (const pageSize of [1, 2, 7, 24, 25, 1000]) {
          const viewerUrl = pageSize === 7 ? `http://127.0.0.1:1/ui/sessions/${sessionId}` : undefined;
          const stream = await engine.openSessionExport(sessionId, {
            format,
            pageSize,
            ...(viewerUrl ? { viewerUrl } : {}),
          });
          const chunks = await collect(stream);
          expect(chunks.join(""), `${sessionId} ${format} by ${pageSize}`).toBe(
            exportSession(record, format, engine.sections, viewerUrl ? { viewerUrl } : {}),
          );
          const pages = Math.ceil(record.thoughts.length / pageSize);
          // The header, one chunk per page, and the close (Markdown leaves it out when there is nothing after the thoughts).
          const closes = format === "json" || record.thoughts.length === 0 || record["notes"] !== undefined ? 1 : 0;
          expect(chunks).toHaveLength(1 + pages + closes);
          expect(stream).toMatchObject({
            format,
            thoughtCount: record.thoughts.length,
            mimeType: format === "json" ? "application/json" : "text/markdown",
          });
        }
      }
    }
  });

  it("is the session as it was when the export opened: thoughts appended meanwhile wait for the next export", async () => {
    const { engine, store } = await engineWith({ s1: { thoughts: 5 } });
    const before = await engine.readSession("s1");
    const stream = await engine.openSessionExport("s1", { format: "markdown", pageSize: 2 });
    const chunks = stream.chunks();
    const first = await chunks.next();
    await store.thoughts.append({
      id: "late",
      session_id: "s1",
      mode: "linear",
      content: "appended during the export",
      created_at: now,
    });
    let text = first.value as string;
    for await (const chunk of chunks) text += chunk;
    expect(text).toBe(exportSession(before, "markdown", engine.sections));
    expect(text).not.toContain("appended during the export");
  });

  it("reads no further page once the reader stops, and streams only once", async () => {
    const { store } = await engineWith({ s1: { thoughts: 10 } });
    let pageReads = 0;
    const counting: Store<NotesRepositories> = {
      ...store,
      thoughts: {
        ...store.thoughts,
        after: (sessionId, page) => {
          pageReads += 1;
          return store.thoughts.after(sessionId, page);
        },
      },
    };
    const counted = createEngine({
      store: counting,
      modules: [notesModule],
      models: createModelRouterFromModel(createScriptedModel([])),
    });
    const stream = await counted.openSessionExport("s1", { format: "json", pageSize: 2 });
    expect(pageReads).toBe(0);
    const chunks = stream.chunks();
    await chunks.next();
    await chunks.next();
    expect(pageReads).toBe(1);
    await chunks.return(undefined);
    expect(await chunks.next()).toEqual({ done: true, value: undefined });
    expect(pageReads).toBe(1);
    expect(() => stream.chunks()).toThrow("streams once");
  });

  it("refuses an unknown session before producing anything, naming session_id", async () => {
    const { engine } = await engineWith({});
    const error = await engine
      .openSessionExport("ses_missing", { format: "markdown" })
      .catch((caught: unknown) => caught);
    expect(DeliberateError.isInstance(error) && error.code).toBe("NOT_FOUND");
    expect((error as DeliberateError).issues).toEqual([
      { field: "session_id", message: "no session with id 'ses_missing'" },
    ]);
    await expect(engine.readSessionPage("ses_missing", { offset: 0, limit: 10 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(engine.readThoughtPage("ses_missing", { offset: 0, limit: 10 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("a page read is the same window of the whole session, sections and page information included", async () => {
    const { engine } = await engineWith({
      dense: { thoughts: 12, notes: 5 },
      holes: { thoughts: 12, holesAfter: [3, 4], superseded: [0] },
      empty: { thoughts: 0 },
    });
    for (const sessionId of ["dense", "holes", "empty"]) {
      const whole = await engine.readSession(sessionId);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: 15 }), fc.integer({ min: 1, max: 15 }), async (offset, limit) => {
          expect(await engine.readSessionPage(sessionId, { offset, limit })).toEqual(
            pageSessionRecord(whole, { offset, limit }),
          );
          const { thoughts, page } = pageSessionRecord({ thoughts: whole.thoughts }, { offset, limit });
          expect(await engine.readThoughtPage(sessionId, { offset, limit })).toEqual({
            session_id: sessionId,
            thoughts,
            page,
          });
        }),
        { numRuns: 30 },
      );
    }
  });
});

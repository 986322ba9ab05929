import { parseInput } from "@deliberate/contracts";
import { type DeliberateEngine, type SessionExportStream, streamedExportFormats } from "@deliberate/engine";
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { Logger } from "../logger.ts";
import { newErrorId } from "../errors.ts";
import type { OperationCatalog } from "../openapi/operation.ts";

const exportQuerySchema = z.object({
  format: z
    .enum(streamedExportFormats)
    .default("markdown")
    .describe(
      "markdown (the transcript: every thought in order, then each module's section) or json (the session record: session, thoughts, sections)",
    ),
});

const fileSuffix = { markdown: "md", json: "json" } as const;

/** What became of one streamed export, for the log. */
type Outcome =
  | { outcome: "complete" | "cancelled"; bytes: number }
  | { outcome: "failed"; bytes: number; error: unknown };

/**
 * The export as a byte stream that reads the next page only when the consumer
 * pulls (no queue ahead of the socket: `highWaterMark` 0, and Node's writable
 * backpressure before the next pull). A client that goes away cancels it, which
 * ends the page reads; a read that fails mid-way errors the stream, so the client
 * sees a cut transfer rather than a document silently short.
 */
function exportBody(stream: SessionExportStream, report: (outcome: Outcome) => void): ReadableStream<Uint8Array> {
  const chunks = stream.chunks();
  const encoder = new TextEncoder();
  let bytes = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const next = await chunks.next();
            if (next.done) {
              controller.close();
              report({ outcome: "complete", bytes });
              return;
            }
            if (next.value === "") continue;
            const encoded = encoder.encode(next.value);
            bytes += encoded.byteLength;
            controller.enqueue(encoded);
            return;
          }
        } catch (error) {
          controller.error(error);
          report({ outcome: "failed", bytes, error });
        }
      },
      async cancel() {
        await chunks.return(undefined);
        report({ outcome: "cancelled", bytes });
      },
    },
    new CountQueuingStrategy({ highWaterMark: 0 }),
  );
}

/** A filename for Content-Disposition: the session id with anything outside [A-Za-z0-9._-] replaced. */
const fileName = (sessionId: string, suffix: string) =>
  `${sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 120) || "session"}.${suffix}`;

/**
 * GET /v1/sessions/{id}/export: the whole session in one response, streamed a
 * page of thoughts at a time (memory stays that of a page whatever the session's
 * size). Auth, rate limit and errors as the other session routes: 404 for an
 * unknown session, 400 for a format outside the allowed values.
 */
export function sessionExportRoutes(
  catalog: OperationCatalog,
  options: { engine: DeliberateEngine; logger: Logger },
): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  catalog.add(
    app,
    {
      method: "get",
      path: "/v1/sessions/:session_id/export",
      operationId: "exportSession",
      summary: "The whole session as Markdown or JSON, streamed",
      description:
        "Every thought (no page limit) and every module section, in the text the MCP export renders: `format=markdown` (text/markdown, the default) or `format=json` (application/json, the session record). " +
        "Streamed as it is read, a page of thoughts at a time; thoughts appended after the export starts are left for the next one (X-Thought-Count says how many it holds). A failure part-way cuts the transfer.",
      tags: ["sessions"],
      parameters: { session_id: "A session_id returned by a tool" },
      query: exportQuerySchema,
      response: {
        description: "The export (Markdown; with format=json, the session record as JSON)",
        contentType: "text/markdown",
      },
      errors: [400, 404],
    },
    async (c) => {
      const query = c.req.query();
      const { format } = parseInput(
        exportQuerySchema,
        query["format"] !== undefined ? { format: query["format"] } : {},
        "query",
      );
      const sessionId = c.req.param("session_id") ?? "";
      const stream = await options.engine.openSessionExport(sessionId, { format });
      const requestId = c.get("requestId");
      const started = performance.now();
      const body = exportBody(stream, (ended) => {
        const fields = {
          session_id: sessionId,
          format,
          thoughts: stream.thoughtCount,
          bytes: ended.bytes,
          duration_ms: Math.round(performance.now() - started),
          request_id: requestId,
        };
        if (ended.outcome === "failed")
          options.logger.error("session export failed part-way; the transfer was cut", {
            ...fields,
            error_id: newErrorId(),
            error: ended.error,
          });
        else if (ended.outcome === "cancelled")
          options.logger.info("session export stopped: the client went away", fields);
        else options.logger.debug("session export streamed", fields);
      });
      return c.body(body, 200, {
        "Content-Type": `${stream.mimeType}; charset=utf-8`,
        "Content-Disposition": `inline; filename="${fileName(stream.session.id, fileSuffix[format])}"`,
        "Cache-Control": "no-store",
        "X-Thought-Count": String(stream.thoughtCount),
      });
    },
  );
  return app;
}

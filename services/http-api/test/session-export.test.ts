import { request } from "node:http";
import { exportSession } from "@deliberate/engine";
import type { Store } from "@deliberate/store";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, getJson, type RunningService, startService } from "./support/service-harness.ts";

// GET /v1/sessions/{id}/export on the real service over loopback (SQLite, or Postgres under
// DELIBERATE_TEST_ENGINE_DIALECT=postgres): the whole session streamed, equal to the MCP export.

const now = "2026-11-27T10:00:00.000Z";
const bigThoughts = 40_000;

/** A session of `count` thoughts written in one statement (each ~450 bytes of Markdown). */
async function seedInSql(store: Store, sessionId: string, count: number): Promise<void> {
  await store.sessions.create({ id: sessionId, mode: "linear", now });
  if (count === 0) return;
  await sql`
    with recursive counter(n) as (select 0 union all select n + 1 from counter where n < ${count - 1})
    insert into thoughts (id, session_id, position, branch_id, parent_id, mode, content, confidence, status, metadata, created_at)
    select ${sessionId} || '-' || n, ${sessionId}, n, null, null, 'linear',
           'Step ' || n || ': weigh the cache hit rate against the invalidation cost, the warm-up time after a deploy and the memory each tier holds; then decide which tier to shrink first and say why. '
             || 'Name the evidence for it, what would change the decision, and the cheapest experiment that tells the two apart before the next release goes out to every region.',
           0.5, 'active', '{}', ${now}
    from counter`.execute(store.db);
}

async function seedWithSections(running: RunningService, sessionId: string): Promise<void> {
  const { store, engine } = running.service;
  await store.transaction(async (repositories) => {
    await repositories.sessions.create({ id: sessionId, mode: "linear", now });
    for (let index = 0; index < 2500; index += 1) {
      await repositories.thoughts.append({
        id: `${sessionId}-${index}`,
        session_id: sessionId,
        parent_id: index ? `${sessionId}-${index - 1}` : null,
        mode: "linear",
        content: `Step ${index}: "quotes", <tags>, | pipes\nand lines`,
        confidence: index % 3 ? 0.7 : null,
        metadata: index % 2 ? { index } : {},
        created_at: now,
      });
    }
  });
  await engine.invoke("reasoning_checkpoint", { operation: "create", session_id: sessionId, name: "halfway" });
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("GET /v1/sessions/{id}/export", () => {
  let running: RunningService;
  beforeAll(async () => {
    running = await startService();
    await seedWithSections(running, "ses_sections");
    await running.service.store.sessions.create({ id: "ses_empty", mode: "linear", now });
    await seedInSql(running.service.store, "ses_big", bigThoughts);
  }, 120_000);
  afterAll(async () => {
    await running?.stop();
  });

  it("streams the whole session as Markdown by default: exactly the MCP export's text, more thoughts than any page", async () => {
    const { engine } = running.service;
    const response = await get(`${running.url}/v1/sessions/ses_sections/export`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(response.headers.get("x-thought-count")).toBe("2500");
    expect(response.headers.get("content-disposition")).toBe('inline; filename="ses_sections.md"');
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(response.text).toBe(exportSession(await engine.readSession("ses_sections"), "markdown", engine.sections));
    expect(response.text).toContain("### 2500. linear");
    expect(response.text).toContain("## Checkpoints");
  });

  it("streams JSON: the session record, byte for byte the JSON export", async () => {
    const { engine } = running.service;
    const record = await engine.readSession("ses_sections");
    const response = await get(`${running.url}/v1/sessions/ses_sections/export?format=json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.text).toBe(exportSession(record, "json", engine.sections));
    expect(JSON.parse(response.text).thoughts).toHaveLength(2500);
  });

  it("exports an empty session: its header, no thoughts", async () => {
    const { engine } = running.service;
    const markdown = await get(`${running.url}/v1/sessions/ses_empty/export?format=markdown`);
    expect(markdown.text).toBe(exportSession(await engine.readSession("ses_empty"), "markdown", engine.sections));
    expect(markdown.text).toContain("(none)");
    expect(markdown.headers.get("x-thought-count")).toBe("0");
    expect(JSON.parse((await get(`${running.url}/v1/sessions/ses_empty/export?format=json`)).text)).toMatchObject({
      session: { id: "ses_empty" },
      thoughts: [],
    });
  });

  it("answers an unknown session 404 as the other session routes do", async () => {
    const exported = await getJson(`${running.url}/v1/sessions/ses_nowhere/export`);
    const read = await getJson(`${running.url}/v1/sessions/ses_nowhere`);
    expect(exported.status).toBe(404);
    expect(exported.json.error).toEqual(read.json.error);
    expect(exported.json.error).toMatchObject({ code: "NOT_FOUND", issues: [{ field: "session_id" }] });
  });

  it("refuses a format outside the allowed values with 400 naming format and the values", async () => {
    for (const format of ["mermaid", "MARKDOWN", ""]) {
      const response = await getJson(`${running.url}/v1/sessions/ses_sections/export?format=${format}`);
      expect(response.status, format).toBe(400);
      expect(response.json.error.code).toBe("INVALID_INPUT");
      expect(response.json.error.issues).toEqual([
        { field: "format", message: expect.stringMatching(/markdown.*json/) },
      ]);
    }
  });

  it("is described in the OpenAPI document with its format parameter", async () => {
    const document = (await getJson(`${running.url}/openapi.json`)).json;
    const operation = document.paths["/v1/sessions/{session_id}/export"].get;
    expect(operation.operationId).toBe("exportSession");
    expect(operation.parameters).toContainEqual(
      expect.objectContaining({
        name: "format",
        in: "query",
        schema: expect.objectContaining({ enum: expect.arrayContaining(["markdown", "json"]), default: "markdown" }),
      }),
    );
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["200", "400", "404"]));
  });

  it("a client that goes away mid-stream stops the reads; the server keeps serving", async () => {
    const { port, hostname } = new URL(running.url);
    const firstBytes = await new Promise<number>((resolve, reject) => {
      const outgoing = request(
        { host: hostname, port, path: "/v1/sessions/ses_big/export", method: "GET" },
        (response) => {
          response.once("data", (chunk: Buffer) => {
            // Read one chunk, then leave without reading the rest.
            response.pause();
            outgoing.destroy();
            resolve(chunk.length);
          });
          response.once("error", () => {});
        },
      );
      outgoing.on("error", (error) => (outgoing.destroyed ? undefined : reject(error)));
      outgoing.end();
    });
    expect(firstBytes).toBeGreaterThan(0);
    const stopped = await eventually(
      () =>
        running.logs
          .map((line) => JSON.parse(line))
          .find((entry) => entry.message === "session export stopped: the client went away"),
      30_000,
      "the cancelled export's log line",
    );
    expect(stopped).toMatchObject({ session_id: "ses_big", thoughts: bigThoughts });
    // Stopped well before the end: the export reads only as fast as the client takes it.
    const whole = exportSession(
      await running.service.engine.readSession("ses_big"),
      "markdown",
      running.service.engine.sections,
    );
    expect(stopped.bytes).toBeLessThan(Buffer.byteLength(whole) / 2);
    // Still serving: health, and the same export read to its end.
    expect((await get(`${running.url}/healthz`)).status).toBe(200);
    const again = await get(`${running.url}/v1/sessions/ses_big/export`);
    expect(again.text).toBe(whole);
  }, 120_000);
});

describe("GET /v1/sessions/{id}/export behind a bearer token", () => {
  let running: RunningService;
  beforeAll(async () => {
    running = await startService({ REASONING_API_TOKEN: "export-token-0123456789abcdef" });
    await running.service.store.sessions.create({ id: "ses_private", mode: "linear", now });
  }, 60_000);
  afterAll(async () => {
    await running?.stop();
  });

  it("answers 401 without the token and the export with it", async () => {
    expect((await getJson(`${running.url}/v1/sessions/ses_private/export`)).status).toBe(401);
    expect(
      (
        await getJson(`${running.url}/v1/sessions/ses_private/export`, {
          authorization: "Bearer wrong-token-0123456789abcdef",
        })
      ).status,
    ).toBe(401);
    const allowed = await get(`${running.url}/v1/sessions/ses_private/export`, {
      authorization: "Bearer export-token-0123456789abcdef",
    });
    expect(allowed.status).toBe(200);
    expect(allowed.text).toContain("# Session ses_private");
  });
});

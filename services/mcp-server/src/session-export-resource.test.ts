import { type DeliberateEngine, exportSession } from "@deliberate/engine";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import type { Store } from "@deliberate/store";
import type { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testClient } from "../test/support/test-client.ts";
import { createComposedEngine } from "../test/support/test-engine.ts";
import { createServer } from "./create-server.ts";
import { createLogger } from "./logger.ts";

// The whole-session export resources on a real engine and store (SQLite, or Postgres under
// DELIBERATE_TEST_ENGINE_DIALECT=postgres), through the SDK client: one read, every thought.

const now = "2026-11-27T10:00:00.000Z";
let engine: DeliberateEngine;
let store: Store;
let client: Client;

async function seedSession(sessionId: string, thoughts: number): Promise<void> {
  await store.transaction(async (repositories) => {
    await repositories.sessions.create({ id: sessionId, mode: "linear", now });
    for (let index = 0; index < thoughts; index += 1) {
      await repositories.thoughts.append({
        id: `${sessionId}-${index}`,
        session_id: sessionId,
        mode: "linear",
        content: `Step ${index}: "why" <and> | how\nmore`,
        confidence: index % 4 === 0 ? null : 0.75,
        metadata: index % 2 ? { step: index } : {},
        created_at: now,
      });
    }
  });
}

beforeAll(async () => {
  ({ engine, store } = await createComposedEngine(createModelRouterFromModel(createScriptedModel([]))));
  // More thoughts than the largest window (1,000), so a windowed read could not hold them.
  await seedSession("ses_long", 2345);
  await engine.invoke("reasoning_checkpoint", { operation: "create", session_id: "ses_long", name: "midway" });
  await seedSession("ses_empty", 0);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createServer({ engine, sessions: engine, logger: createLogger({ level: "error", sinks: [() => {}] }) }).connect(
    serverSide,
  );
  client = testClient({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await store?.close();
});

const textOf = (result: { contents: Array<{ text?: string; mimeType?: string }> }) => result.contents[0]?.text;

describe("whole-session export resources", () => {
  it("export.md is every thought and section in one read: exactly the Markdown export of the whole session", async () => {
    const expected = exportSession(await engine.readSession("ses_long"), "markdown", engine.sections);
    const result = await client.readResource({ uri: "deliberate://sessions/ses_long/export.md" });
    expect(result.contents[0]?.mimeType).toBe("text/markdown");
    expect(textOf(result)).toBe(expected);
    expect(expected).toContain("### 2345. linear");
    expect(expected).toContain("**midway**");
  });

  it("export.json is the session record as JSON, every thought included", async () => {
    const record = await engine.readSession("ses_long");
    const result = await client.readResource({ uri: "deliberate://sessions/ses_long/export.json" });
    expect(result.contents[0]?.mimeType).toBe("application/json");
    expect(textOf(result)).toBe(exportSession(record, "json", engine.sections));
    expect(JSON.parse(textOf(result) as string)).toEqual(JSON.parse(JSON.stringify(record)));
  });

  it("an empty session exports its header and says it has no thoughts", async () => {
    const text = textOf(await client.readResource({ uri: "deliberate://sessions/ses_empty/export.md" }));
    expect(text).toBe(exportSession(await engine.readSession("ses_empty"), "markdown", engine.sections));
    expect(text).toContain("## Thoughts\n\n(none)\n");
    expect(
      JSON.parse(textOf(await client.readResource({ uri: "deliberate://sessions/ses_empty/export.json" })) as string),
    ).toMatchObject({ thoughts: [] });
  });

  it("the windowed resources still serve their window, read as the page alone", async () => {
    const text = textOf(
      await client.readResource({ uri: "deliberate://sessions/ses_long/markdown?limit=100&offset=2300" }),
    ) as string;
    expect(text).toContain("<!-- ses_long-2300 -->");
    expect(text).toContain("<!-- ses_long-2344 -->");
    expect(text).not.toContain("<!-- ses_long-2299 -->");
    expect(text).toContain("(thoughts 2301-2345 of 2345)");
    // A window's thoughts keep their numbers in the session.
    expect(text).toContain("### 2301. linear");
    expect(text).not.toContain("### 1. linear");
    const json = JSON.parse(
      textOf(await client.readResource({ uri: "deliberate://sessions/ses_long?limit=5&offset=10" })) as string,
    );
    expect(json.page).toEqual({
      offset: 10,
      limit: 5,
      totals: { thoughts: 2345, branches: 0, checkpoints: 1 },
      next_offset: 15,
    });
    expect(json.thoughts.map((thought: { id: string }) => thought.id)).toEqual([
      "ses_long-10",
      "ses_long-11",
      "ses_long-12",
      "ses_long-13",
      "ses_long-14",
    ]);
  });

  it("an unknown session is resource-not-found; a window on an export is invalid params naming uri", async () => {
    await expect(client.readResource({ uri: "deliberate://sessions/ses_unknown/export.md" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Resource not found"),
    });
    await expect(
      client.readResource({ uri: "deliberate://sessions/ses_long/export.json?limit=10" }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("uri: export.json is the whole session"),
    });
    await expect(client.readResource({ uri: "deliberate://sessions/ses_long/export.txt" })).rejects.toMatchObject({
      message: expect.stringContaining("Resource not found"),
    });
  });

  it("lists the export templates after the windowed ones", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.slice(-2)).toMatchObject([
      { uriTemplate: "deliberate://sessions/{session_id}/export.md", mimeType: "text/markdown" },
      { uriTemplate: "deliberate://sessions/{session_id}/export.json", mimeType: "application/json" },
    ]);
  });
});

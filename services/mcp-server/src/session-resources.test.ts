import { DeliberateError, pageSessionRecord, type Session, type Thought } from "@deliberate/contracts";
import { type Engine, exportSession, type SessionExportStream, type SessionRecord } from "@deliberate/engine";
import type { Client } from "@modelcontextprotocol/client";
import { testClient } from "../test/support/test-client.ts";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { createServer } from "./create-server.ts";
import { createLogger } from "./logger.ts";
import type { SessionReader } from "./session-resources.ts";

const noTools: Engine = { tools: [], invoke: () => Promise.reject(new Error("no tools")) };

function session(index: number): Session {
  const time = new Date(Date.UTC(2026, 10, 1, 0, 0, index)).toISOString();
  return {
    id: `ses_${String(index).padStart(4, "0")}`,
    mode: "linear",
    active_branch_id: null,
    created_at: time,
    updated_at: time,
  } as Session;
}

function thought(sessionId: string, index: number): Thought {
  return {
    id: `th_${index}`,
    session_id: sessionId,
    content: `Thought number ${index}`,
    mode: "linear",
    branch_id: null,
    parent_id: index === 0 ? null : `th_${index - 1}`,
    confidence: 0.5,
    status: "active",
    metadata: {},
    created_at: "2026-11-01T00:00:00.000Z",
  } as unknown as Thought;
}

/** Sessions newest first, one of them with 5,000 thoughts; reading anything else is NOT_FOUND, "ses_broken" crashes. */
function createReader(count: number): SessionReader {
  const sessions = Array.from({ length: count }, (_, index) => session(index)).reverse();
  return {
    sections: [],
    async listSessions(limit) {
      return sessions.slice(0, limit);
    },
    // The engine's page and export are defined as these of the whole record (its tests hold it to that).
    async readSessionPage(sessionId, window) {
      return pageSessionRecord(await this.readSession(sessionId), window);
    },
    async openSessionExport(sessionId, options): Promise<SessionExportStream> {
      const record = await this.readSession(sessionId);
      const text = exportSession(
        record,
        options.format,
        [],
        options.viewerUrl !== undefined ? { viewerUrl: options.viewerUrl } : {},
      );
      return {
        session: record.session,
        format: options.format,
        mimeType: options.format === "json" ? "application/json" : "text/markdown",
        thoughtCount: record.thoughts.length,
        async *chunks() {
          yield text;
        },
      };
    },
    async readSession(sessionId): Promise<SessionRecord> {
      if (sessionId === "ses_broken") throw new Error("SQLITE_CORRUPT at page 7 (secret internals)");
      const found = sessions.find((candidate) => candidate.id === sessionId);
      if (!found)
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Session not found: ${sessionId}`,
          issues: [{ field: "session_id", message: "no such session" }],
        });
      const thoughts =
        sessionId === "ses_0000"
          ? Array.from({ length: 5000 }, (_, index) => thought(sessionId, index))
          : [thought(sessionId, 0)];
      return { session: found, thoughts, branches: [], checkpoints: [] };
    },
  };
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(reader: SessionReader): Promise<Client> {
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await createServer({
    engine: noTools,
    sessions: reader,
    logger: createLogger({ level: "error", sinks: [() => {}] }),
  }).connect(serverSide);
  const client = testClient({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

function rejection(promise: Promise<unknown>): Promise<{ code?: number; message: string; data?: unknown }> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as { code?: number; message: string },
  );
}

describe("session resources", () => {
  it("does not advertise resources.listChanged, since it never sends it", async () => {
    const client = await connect(createReader(1));
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    expect(client.getServerCapabilities()?.resources?.listChanged).toBe(false);
  });

  it("pages resources/list with a cursor until every session is listed once", async () => {
    const client = await connect(createReader(120));
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      // One page per request (listResources() without a cursor would walk them all itself).
      const page = await client.request({ method: "resources/list", params: cursor === undefined ? {} : { cursor } });
      uris.push(...page.resources.map((resource) => resource.uri));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined && pages < 10);
    expect(pages).toBe(3);
    expect(uris).toHaveLength(360);
    expect(new Set(uris).size).toBe(360);
    expect(uris[0]).toBe("deliberate://sessions/ses_0119");
    expect(uris).toContain("deliberate://sessions/ses_0000/mermaid");
    expect((await client.listResources()).resources).toHaveLength(360);
    const bad = await rejection(client.listResources({ cursor: "not-a-cursor" }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("cursor");
  });

  it("answers an unknown session with the SDK's resource-not-found error, and hides other failures", async () => {
    const client = await connect(createReader(2));
    const missing = await rejection(client.readResource({ uri: "deliberate://sessions/ses_unknown" }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain("Resource not found: deliberate://sessions/ses_unknown");
    const broken = await rejection(client.readResource({ uri: "deliberate://sessions/ses_broken/markdown" }));
    expect(broken.code).toBe(-32603);
    expect(broken.message).not.toContain("secret internals");
    expect(broken.message).toMatch(/error err_[0-9a-f]{16}/);
    const elsewhere = await rejection(client.readResource({ uri: "deliberate://elsewhere/x" }));
    expect(elsewhere.message).toContain("Resource not found");
  });

  it("says a read failed for an unavailable database retryably, without the driver's message", async () => {
    const reader = createReader(1);
    const readSession = async () => {
      throw Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" });
    };
    const client = await connect({ ...reader, readSession });
    const refused = await rejection(client.readResource({ uri: "deliberate://sessions/ses_0000" }));
    expect(refused.code).toBe(-32603);
    expect(refused.message).toContain("database is unavailable");
    expect(refused.message).not.toContain("administrator");
    expect(refused.data).toMatchObject({ code: "STORAGE", retryable: true, retry_after_seconds: 2 });
  });

  it("refuses a session id that is not valid percent-encoding or holds U+0000 as invalid params naming session_id, never an internal error", async () => {
    const reads: string[] = [];
    const reader = createReader(1);
    const readSession = (sessionId: string) => {
      reads.push(sessionId);
      return reader.readSession(sessionId);
    };
    const client = await connect({ ...reader, readSession });
    for (const uri of [
      "deliberate://sessions/%ZZ",
      "deliberate://sessions/%E0%A4%A/markdown",
      "deliberate://sessions/ses%00x",
      "deliberate://sessions/ses\u0000x/mermaid",
    ]) {
      const refused = await rejection(client.readResource({ uri }));
      expect(refused.code).toBe(-32602);
      expect(refused.message).toContain("session_id");
      expect(refused.data).toMatchObject({ code: "INVALID_INPUT", issues: [{ field: "session_id" }] });
    }
    expect(reads).toEqual([]);
  });

  it("windows a large session's lists with ?limit&offset, 100 items by default", async () => {
    const client = await connect(createReader(1));
    const read = async (uri: string) =>
      (await client.readResource({ uri })).contents[0] as { text: string; mimeType: string };

    const first = JSON.parse((await read("deliberate://sessions/ses_0000")).text) as {
      thoughts: Thought[];
      page: Record<string, unknown>;
    };
    expect(first.thoughts).toHaveLength(100);
    expect(first.page).toEqual({
      offset: 0,
      limit: 100,
      totals: { thoughts: 5000, branches: 0, checkpoints: 0 },
      next_offset: 100,
    });

    const window = JSON.parse((await read("deliberate://sessions/ses_0000?limit=10&offset=100")).text) as {
      thoughts: Thought[];
      page: Record<string, unknown>;
    };
    expect(window.thoughts.map((item) => item.id)).toEqual(
      Array.from({ length: 10 }, (_, index) => `th_${100 + index}`),
    );
    expect(window.page).toMatchObject({ offset: 100, limit: 10, next_offset: 110 });

    const markdown = await read("deliberate://sessions/ses_0000/markdown?limit=5&offset=4995");
    expect(markdown.mimeType).toBe("text/markdown");
    expect(markdown.text).toContain("Thought number 4999");
    expect(markdown.text).not.toContain("Thought number 4994");
    expect(markdown.text).toContain("thoughts 4996-5000 of 5000");
    expect(markdown.text.length).toBeLessThan(5000);

    const bad = await rejection(client.readResource({ uri: "deliberate://sessions/ses_0000?limit=0" }));
    expect(bad.code).toBe(-32602);
    expect(bad.message).toContain("limit");
  });

  it("lists the templates with their query parameters", async () => {
    const client = await connect(createReader(1));
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      "deliberate://sessions/{session_id}{?limit,offset}",
      "deliberate://sessions/{session_id}/markdown{?limit,offset}",
      "deliberate://sessions/{session_id}/mermaid{?limit,offset}",
      "deliberate://sessions/{session_id}/export.md",
      "deliberate://sessions/{session_id}/export.json",
    ]);
  });
});

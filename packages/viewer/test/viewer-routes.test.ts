import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createViewerRoutes } from "../src/viewer-routes.ts";
import { seedSessions, type SeededData } from "./seed-sessions.ts";
import { type ServedViewer, serveViewer } from "./serve-viewer.ts";

let seeded: SeededData;
beforeAll(async () => {
  seeded = await seedSessions();
});
afterAll(async () => {
  await seeded.store.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`http://viewer.test${path}`, { headers });

describe("createViewerRoutes", () => {
  it("answers only under its base path, and only GET and HEAD", async () => {
    const viewer = createViewerRoutes({ ...seeded.source });
    expect(await viewer(get("/v1/tools"))).toBeUndefined();
    expect(await viewer(get("/uix"))).toBeUndefined();
    const post = await viewer(new Request("http://viewer.test/ui/api/sessions", { method: "POST", body: "{}" }));
    expect(post?.status).toBe(405);
    expect(post?.headers.get("allow")).toBe("GET, HEAD");
    const missing = await viewer(get("/ui/nothing/here"));
    expect(missing?.status).toBe(404);
  });

  it("serves the page with a strict content security policy, the base path and the config as inert JSON", async () => {
    const viewer = createViewerRoutes({
      ...seeded.source,
      basePath: "/viewer/",
      filterOptions: { kinds: ["graph", "</script><script>alert(1)</script>"] },
    });
    const response = (await viewer(get("/viewer/sessions/ses_1")))!;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('src="/viewer/assets/viewer.js?v=');
    // The hostile filter value cannot close the JSON script element.
    expect(html).not.toContain("</script><script>alert(1)");
    expect(html).toContain("\\u003c/script>");
    const script = (await viewer(get("/viewer/assets/viewer.js")))!;
    expect(script.headers.get("content-type")).toContain("javascript");
    const etag = script.headers.get("etag")!;
    expect((await viewer(get("/viewer/assets/viewer.js", { "if-none-match": etag })))?.status).toBe(304);
    expect((await viewer(get("/viewer/assets/viewer.css")))?.headers.get("content-type")).toContain("text/css");
  });

  it("lists sessions newest first with filters and a next-page flag", async () => {
    const viewer = createViewerRoutes({ ...seeded.source });
    const first = await (await viewer(get("/ui/api/sessions?limit=3")))!.json();
    expect(first.sessions).toHaveLength(3);
    expect(first.has_more).toBe(true);
    const updated = first.sessions.map((session: { updated_at: string }) => session.updated_at);
    expect([...updated].sort().reverse()).toEqual(updated);
    const graphs = await (await viewer(get("/ui/api/sessions?kind=graph")))!.json();
    expect(graphs.sessions.map((session: { id: string }) => session.id)).toEqual([seeded.ids.graph]);
    expect(graphs.has_more).toBe(false);
    const byTool = await (await viewer(get("/ui/api/sessions?tool=reasoning_mcts")))!.json();
    expect(byTool.sessions.map((session: { id: string }) => session.id)).toEqual([seeded.ids.mcts]);
    const searched = await (await viewer(get("/ui/api/sessions?search=postgres")))!.json();
    expect(searched.sessions.map((session: { id: string }) => session.id)).toEqual([seeded.ids.decision]);
    const bad = (await viewer(get("/ui/api/sessions?limit=-1")))!;
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.message).toContain("limit");
  });

  it("returns a session with its invocations and a version, and 404 for an unknown one", async () => {
    const viewer = createViewerRoutes({ ...seeded.source });
    const body = await (await viewer(get(`/ui/api/sessions/${seeded.ids.graph}`)))!.json();
    expect(body.record.session.id).toBe(seeded.ids.graph);
    expect(body.record.graph.nodes.length).toBeGreaterThan(4);
    expect(body.invocations.map((invocation: { tool: string }) => invocation.tool)).toContain("reasoning_graph");
    expect(body.version).toMatch(/^[0-9a-f]{24}$/);
    const missing = (await viewer(get("/ui/api/sessions/ses_nope")))!;
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain("ses_nope");
  });

  it("pages a session like every other surface: each list and the invocations cut to ?offset&limit, with totals", async () => {
    const viewer = createViewerRoutes({ ...seeded.source });
    const whole = await (await viewer(get(`/ui/api/sessions/${seeded.ids.graph}?limit=1000`)))!.json();
    const nodes = whole.record.graph.nodes as Array<{ id: string }>;
    expect(whole.page).toMatchObject({ offset: 0, limit: 1000, next_offset: null });
    expect(whole.page.totals["graph.nodes"]).toBe(nodes.length);
    expect(whole.page.totals["invocations"]).toBe(whole.invocations.length);

    const read: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = await (await viewer(get(`/ui/api/sessions/${seeded.ids.graph}?limit=2&offset=${offset}`)))!.json();
      expect(page.record.graph.nodes.length).toBeLessThanOrEqual(2);
      expect(page.version).toBe(whole.version);
      read.push(...page.record.graph.nodes.map((node: { id: string }) => node.id));
      offset = page.page.next_offset;
    }
    expect(read).toEqual(nodes.map((node) => node.id));
    // 100 per list unless asked; at most 1000.
    expect((await (await viewer(get(`/ui/api/sessions/${seeded.ids.graph}`)))!.json()).page.limit).toBe(100);
    for (const query of ["limit=1001", "limit=abc", "offset=-1", "limit=1e3"]) {
      const bad = (await viewer(get(`/ui/api/sessions/${seeded.ids.graph}?${query}`)))!;
      expect(bad.status, query).toBe(400);
      expect((await bad.json()).error.message).toContain(query.split("=")[0]);
    }
  });

  it("refuses a session id with bad percent-encoding or U+0000, and U+0000 in a filter, as 400 INVALID_INPUT naming the field", async () => {
    const errors: unknown[] = [];
    const viewer = createViewerRoutes({ ...seeded.source, onError: (error) => errors.push(error) });
    const cases: Array<[string, string]> = [
      ["/ui/api/sessions/%ZZ", "session_id"],
      ["/ui/api/sessions/%E0%A4%A/events", "session_id"],
      ["/ui/api/sessions/ses%00x", "session_id"],
      ["/ui/api/sessions/ses%00x/events", "session_id"],
      ["/ui/api/sessions?search=a%00b", "search"],
      ["/ui/api/sessions?tool=reasoning_linear%00", "tool"],
      ["/ui/api/sessions?kind=%00", "kind"],
    ];
    for (const [path, field] of cases) {
      const response = (await viewer(get(path)))!;
      expect(response.status, path).toBe(400);
      const body = await response.json();
      expect(body.error, path).toMatchObject({ code: "INVALID_INPUT", issues: [{ field }] });
      expect(body.error.message, path).toContain(field);
    }
    expect(errors).toEqual([]);
  });

  it("requires the bearer token on data endpoints only, when one is configured", async () => {
    const viewer = createViewerRoutes({ ...seeded.source, token: "s3cret" });
    expect((await viewer(get("/ui")))?.status).toBe(200);
    const none = (await viewer(get("/ui/api/sessions")))!;
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await viewer(get("/ui/api/sessions", { authorization: "Bearer wrong" })))?.status).toBe(401);
    expect((await viewer(get(`/ui/api/sessions/${seeded.ids.linear}/events`)))?.status).toBe(401);
    expect((await viewer(get("/ui/api/sessions", { authorization: "Bearer s3cret" })))?.status).toBe(200);
    // A token in the query string is never accepted.
    expect((await viewer(get("/ui/api/sessions?token=s3cret")))?.status).toBe(401);
  });

  it("reports an unexpected failure without its details and tells the service", async () => {
    const errors: unknown[] = [];
    const viewer = createViewerRoutes({
      ...seeded.source,
      readSession: async () => {
        throw new Error("disk on fire at /var/secret");
      },
      onError: (error) => errors.push(error),
    });
    const response = (await viewer(get("/ui/api/sessions/ses_1")))!;
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("secret");
    expect(errors).toHaveLength(1);
  });
});

describe("live stream over real HTTP", () => {
  let served: ServedViewer;
  beforeAll(async () => {
    served = await serveViewer({ ...seeded.source, pollIntervalMs: 50 });
  });
  afterAll(async () => {
    await served.close();
  });

  async function* events(response: Response) {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let boundary = buffer.indexOf("\n\n");
      while (boundary !== -1) {
        yield buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        boundary = buffer.indexOf("\n\n");
      }
    }
  }

  it("sends nothing new for a known version, then pushes the session when it changes", async () => {
    const sessionId = seeded.ids.linear;
    const initial = await (await fetch(`${served.origin}/ui/api/sessions/${sessionId}`)).json();
    const controller = new AbortController();
    const response = await fetch(`${served.origin}/ui/api/sessions/${sessionId}/events`, {
      headers: { "last-event-id": initial.version },
      signal: controller.signal,
    });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const stream = events(response);
    const next = async () => {
      const result = await stream.next();
      if (result.done) throw new Error("the stream ended");
      return result.value;
    };
    const blocks: string[] = [];
    while (!blocks.at(-1)?.includes("event: unchanged")) blocks.push(await next());
    expect(blocks.some((block) => block.includes("event: session"))).toBe(false);

    seeded.advance(60_000);
    await seeded.engine.invoke("reasoning_linear", { content: "A live update arrives.", session_id: sessionId });
    let pushed: { version: string } | undefined;
    // biome-ignore lint/suspicious/noExplicitAny: the session body is read field by field
    let reread: any;
    for (;;) {
      const block = await next();
      if (!block.includes("event: session")) continue;
      const data = block.split("\n").find((line) => line.startsWith("data: "))!;
      pushed = JSON.parse(data.slice("data: ".length));
      expect(block).toContain(`id: ${pushed!.version}`);
      // The event names the version only; the page reads the session again (in pages).
      expect(Object.keys(pushed ?? {})).toEqual(["version"]);
      reread = await (await fetch(`${served.origin}/ui/api/sessions/${sessionId}`)).json();
      // A call writes its thought, then its invocation row: the stream may announce the state between
      // the two (seen on Postgres), and then announces the next one. Read on until the page is current.
      if (reread.version === pushed?.version) break;
    }
    controller.abort();
    expect(pushed?.version).not.toBe(initial.version);
    expect(reread.version).toBe(pushed?.version);
    expect(reread.record.thoughts.map((thought: { content: string }) => thought.content)).toContain(
      "A live update arrives.",
    );
  });

  it("answers 404 before streaming for an unknown session", async () => {
    const response = await fetch(`${served.origin}/ui/api/sessions/ses_unknown/events`);
    expect(response.status).toBe(404);
  });
});

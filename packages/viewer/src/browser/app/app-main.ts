import "virtual:views";
import { App } from "@modelcontextprotocol/ext-apps";
import { h, isRecord, replaceChildren } from "../dom.ts";
import type { SessionData } from "../registry.ts";
import { renderSections, resetSectionStates } from "../render-sections.ts";

/**
 * An MCP App view (rendered by the host inside the conversation): on a tool
 * result it reads the result's session through the host
 * (`deliberate://sessions/{id}`, the server's own resource) and draws the
 * sections this view is for with the viewer's drawing code. It loads nothing
 * from anywhere else.
 */
const main = document.getElementById("main") as HTMLElement;
const views = new Set((main.dataset["views"] ?? "").split(",").filter((name) => name !== ""));

/** The session a result belongs to: reasoning tools say session_id, dialog tools sessionId, the knowledge graph reasoningSessionId. */
function sessionIdOf(structured: unknown): string | undefined {
  if (!isRecord(structured)) return undefined;
  for (const key of ["session_id", "sessionId", "reasoningSessionId"]) {
    const value = structured[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
}

function show(state: string, ...children: Parameters<typeof h>[2][]): void {
  replaceChildren(main, ...children);
  document.body.dataset["state"] = state;
}

const app = new App({ name: "deliberate-view", version: "1.0.0" });

/** The largest page the session resource gives (contracts' maxSessionPageSize). */
const pageLimit = 1000;
/** Pages read at most (a session that keeps growing while it is read is drawn as read so far). */
const maxPages = 50;

type SessionPage = SessionData & { page?: { totals: Record<string, number>; next_offset: number | null } };

async function readPage(sessionId: string, offset: number): Promise<SessionPage> {
  const read = await app.readServerResource({
    uri: `deliberate://sessions/${encodeURIComponent(sessionId)}?limit=${pageLimit}&offset=${offset}`,
  });
  const content = read.contents[0];
  return JSON.parse(content !== undefined && "text" in content ? content.text : "{}") as SessionPage;
}

/** The list a page total names (`thoughts`, or `graph.nodes` inside a section). */
function listIn(record: Record<string, unknown>, name: string): unknown {
  const [outer, inner] = name.split(".") as [string, string | undefined];
  const value = record[outer];
  return inner === undefined ? value : isRecord(value) ? value[inner] : undefined;
}

/** The whole session through the host, page by page (each list the resource windows is appended). */
async function readSession(sessionId: string): Promise<SessionData> {
  const first = await readPage(sessionId, 0);
  let next = first.page?.next_offset ?? null;
  for (let pages = 1; next !== null && pages < maxPages; pages += 1) {
    const page = await readPage(sessionId, next);
    for (const name of Object.keys(page.page?.totals ?? {})) {
      const from = listIn(page, name);
      const to = listIn(first, name);
      if (Array.isArray(from) && Array.isArray(to)) to.push(...from);
    }
    next = page.page?.next_offset ?? null;
  }
  return first;
}

async function draw(structured: unknown): Promise<void> {
  const sessionId = sessionIdOf(structured);
  if (sessionId === undefined) return show("empty", h("p", { class: "muted" }, "This result has no session to draw."));
  show("loading", h("p", { class: "muted" }, "Loading…"));
  const record = await readSession(sessionId);
  resetSectionStates();
  const sections = renderSections({ record, invocations: [] }, views);
  if (sections.length === 0)
    return show("empty", h("p", { class: "muted" }, `Nothing to draw yet for session ${sessionId}.`));
  show("ready", sections);
}

app.ontoolresult = (result) => {
  if (result.isError)
    return show(
      "error",
      h("p", { class: "error", role: "alert" }, "The call failed; its message is in the conversation."),
    );
  draw(result.structuredContent).catch((error: unknown) =>
    show(
      "error",
      h(
        "p",
        { class: "error", role: "alert" },
        `The session could not be drawn: ${error instanceof Error ? error.message : String(error)}`,
      ),
    ),
  );
};

void app.connect();

import { getJson, readEventStream, TokenNeeded, type ViewerConfig } from "./api.ts";
import { formatTime, h, isRecord, replaceChildren } from "./dom.ts";
import type { InvocationData, SessionData } from "./registry.ts";
import { renderSections, resetSectionStates } from "./render-sections.ts";

interface SessionPayload {
  record: SessionData;
  invocations: InvocationData[];
  version: string;
}

/** One page of a session as the service sends it (`?offset&limit`). */
interface SessionPagePayload extends SessionPayload {
  page: { offset: number; limit: number; totals: Record<string, number>; next_offset: number | null };
}

/** The largest page the service gives (contracts' maxSessionPageSize). */
const pageLimit = 1000;

/** The list a page total names: `thoughts` or `graph.nodes` in the record, `invocations` beside it. */
function listNamed(payload: SessionPayload, name: string): unknown {
  const [outer, inner] = name.split(".") as [string, string | undefined];
  const holder: Record<string, unknown> =
    outer === "invocations" ? { invocations: payload.invocations } : payload.record;
  const value = holder[outer];
  if (inner === undefined) return value;
  return isRecord(value) ? value[inner] : undefined;
}

/** Appends a later page's items to every list the page cut. */
function appendPage(into: SessionPayload, page: SessionPagePayload): void {
  for (const name of Object.keys(page.page.totals)) {
    const from = listNamed(page, name);
    const to = listNamed(into, name);
    if (Array.isArray(from) && Array.isArray(to)) to.push(...from);
  }
}

/**
 * The whole session, read page by page (the service never sends a large
 * session in one response). A change between pages starts the read again.
 */
async function loadSession(config: ViewerConfig, sessionId: string): Promise<SessionPayload> {
  const path = `sessions/${encodeURIComponent(sessionId)}`;
  for (let attempt = 0; ; attempt += 1) {
    const first = await getJson<SessionPagePayload>(config, `${path}?limit=${pageLimit}`);
    let next = first.page.next_offset;
    let consistent = true;
    while (next !== null && consistent) {
      const page = await getJson<SessionPagePayload>(config, `${path}?limit=${pageLimit}&offset=${next}`);
      consistent = page.version === first.version;
      appendPage(first, page);
      next = page.page.next_offset;
    }
    if (consistent || attempt >= 2)
      return { record: first.record, invocations: first.invocations, version: first.version };
  }
}

function countOf(record: SessionData, key: string): number {
  const value = record[key];
  return Array.isArray(value) ? value.length : 0;
}

function header(payload: SessionPayload, config: ViewerConfig): HTMLElement {
  const { session } = payload.record;
  const graph = payload.record["graph"];
  const graphNodes = isRecord(graph) && Array.isArray(graph["nodes"]) ? graph["nodes"].length : 0;
  return h(
    "header",
    { class: "session-header" },
    h("p", { class: "crumbs" }, h("a", { href: config.base }, "All sessions")),
    h("h1", {}, "Session ", h("code", {}, session.id)),
    h(
      "dl",
      { class: "facts session-facts" },
      h("div", {}, h("dt", {}, "Kind"), h("dd", {}, h("span", { class: "badge" }, session.mode))),
      h("div", {}, h("dt", {}, "Created"), h("dd", {}, formatTime(session.created_at))),
      h("div", {}, h("dt", {}, "Updated"), h("dd", { "data-field": "updated" }, formatTime(session.updated_at))),
      h(
        "div",
        {},
        h("dt", {}, "Thoughts"),
        h("dd", { "data-field": "thought-count" }, String(countOf(payload.record, "thoughts"))),
      ),
      graphNodes > 0 ? h("div", {}, h("dt", {}, "Graph nodes"), h("dd", {}, graphNodes.toLocaleString("en"))) : null,
      h("div", {}, h("dt", {}, "Invocations"), h("dd", {}, String(payload.invocations.length))),
    ),
    h(
      "p",
      { id: "live-status", class: "live-status", role: "status", "aria-live": "polite" },
      "Connecting to live updates…",
    ),
  );
}

function navigation(sections: readonly HTMLElement[]): HTMLElement | null {
  if (sections.length < 2) return null;
  return h(
    "nav",
    { class: "section-nav", "aria-label": "Sections" },
    h(
      "ul",
      {},
      sections.map((section) =>
        h("li", {}, h("a", { href: `#${section.id}` }, section.querySelector("h2")?.textContent ?? section.id)),
      ),
    ),
  );
}

function draw(main: HTMLElement, payload: SessionPayload, config: ViewerConfig): void {
  const started = performance.now();
  const sections = renderSections(payload);
  const scroll = window.scrollY;
  replaceChildren(main, header(payload, config), navigation(sections), sections);
  window.scrollTo(0, scroll);
  main.dataset["version"] = payload.version;
  main.dataset["renderMs"] = String(Math.round(performance.now() - started));
  document.title = `${payload.record.session.id} · Deliberate`;
}

/**
 * The session page: draws the session, then follows its live stream and
 * redraws on every change (reconnecting with a growing delay).
 */
export async function renderSessionPage(
  config: ViewerConfig,
  main: HTMLElement,
  sessionId: string,
  onTokenNeeded: (problem: TokenNeeded) => void,
): Promise<void> {
  resetSectionStates();
  const payload = await loadSession(config, sessionId);
  performance.mark("viewer-data");
  draw(main, payload, config);
  performance.mark("viewer-ready");
  document.body.dataset["state"] = "ready";

  let version = payload.version;
  // Redraws run one after another, in the order the changes were announced.
  let refresh: Promise<void> = Promise.resolve();
  let delay = 1000;
  const status = (text: string, state: string) => {
    const element = document.getElementById("live-status");
    if (element) {
      element.textContent = text;
      element.dataset["state"] = state;
    }
  };
  const controller = new AbortController();
  window.addEventListener("pagehide", () => controller.abort(), { once: true });
  const follow = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        await readEventStream(config, `sessions/${encodeURIComponent(sessionId)}/events`, {
          lastEventId: version,
          signal: controller.signal,
          onOpen: () => {
            delay = 1000;
            status("Live: this page follows the session.", "live");
          },
          onEvent: (event) => {
            if (event.event === "session") {
              // The event names the new version; the session itself is read again, in pages.
              const announced = (JSON.parse(event.data) as { version: string }).version;
              if (announced === version) return;
              refresh = refresh
                .then(async () => {
                  const next = await loadSession(config, sessionId);
                  version = next.version;
                  draw(main, next, config);
                  status(`Live: updated ${formatTime(next.record.session.updated_at)}.`, "live");
                })
                .catch((error: unknown) => {
                  if (error instanceof TokenNeeded) onTokenNeeded(error);
                  else status("The session could not be read; retrying.", "error");
                });
            } else if (event.event === "failure") {
              status("The session could not be read; retrying.", "error");
            }
          },
        });
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof TokenNeeded) {
          onTokenNeeded(error);
          return;
        }
      }
      if (controller.signal.aborted) return;
      status("Live updates interrupted; reconnecting…", "reconnecting");
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(30_000, delay * 2);
    }
  };
  void follow();
}

import { type Child, h, replaceChildren } from "./dom.ts";
import { type InvocationData, registeredViews, type SessionData, type ViewContext, viewNamed } from "./registry.ts";
import { renderJsonSection } from "./views/json-section.ts";

/** Sections that are part of the page's header, not drawn as sections. */
const headerKeys = new Set(["session"]);

/** Per-section state kept across live updates (e.g. how many nodes are shown). */
const sectionStates = new Map<string, Map<string, unknown>>();

/** Forgets the sections' state (a different session is drawn). */
export function resetSectionStates(): void {
  sectionStates.clear();
}

function stateOf(name: string): Map<string, unknown> {
  let state = sectionStates.get(name);
  if (!state) {
    state = new Map();
    sectionStates.set(name, state);
  }
  return state;
}

/**
 * Draws every section of the session that has something to show, or only the
 * views named in `only` (an MCP App view draws one kind of result). Shared by
 * the session page and the in-chat views, so one drawing serves both.
 */
export function renderSections(
  payload: { record: SessionData; invocations: readonly InvocationData[] },
  only?: ReadonlySet<string>,
): HTMLElement[] {
  const { record, invocations } = payload;
  const sections: HTMLElement[] = [];
  const draw = (name: string, title: string, render: (context: ViewContext) => Child) => {
    const headingId = `heading-${name}`;
    const section = h("section", {
      class: `section section-${name}`,
      id: `section-${name}`,
      "aria-labelledby": headingId,
      "data-section": name,
    });
    const fill = () => {
      const context: ViewContext = { record, invocations, state: stateOf(name), rerender: fill };
      const body = render(context);
      replaceChildren(section, h("h2", { id: headingId }, title), body);
    };
    const context: ViewContext = { record, invocations, state: stateOf(name), rerender: fill };
    const body = render(context);
    if (body === null || body === undefined || body === false) return;
    replaceChildren(section, h("h2", { id: headingId }, title), body);
    sections.push(section);
  };

  const drawn = new Set<string>();
  for (const view of registeredViews()) {
    drawn.add(view.name);
    if (only !== undefined && !only.has(view.name)) continue;
    const data = view.select ? view.select(record, invocations) : record[view.name];
    if (data === undefined || data === null) continue;
    if (Array.isArray(data) && data.length === 0) continue;
    draw(view.name, view.title, (context) => {
      try {
        return view.render(data, context);
      } catch (error) {
        // A view that cannot draw its data must not take the page down: show the data instead.
        return h(
          "div",
          {},
          h(
            "p",
            { class: "error" },
            `This section could not be drawn (${error instanceof Error ? error.message : String(error)}); its data follows.`,
          ),
          renderJsonSection(data),
        );
      }
    });
  }
  // Sections no view knows (a module's new section): shown as formatted data (on the full page only).
  for (const key of only === undefined ? Object.keys(record).sort() : []) {
    if (headerKeys.has(key) || drawn.has(key) || viewNamed(key)) continue;
    const data = record[key];
    if (data === undefined || data === null || (Array.isArray(data) && data.length === 0)) continue;
    draw(key, key.replaceAll("_", " "), () => renderJsonSection(data));
  }
  return sections;
}

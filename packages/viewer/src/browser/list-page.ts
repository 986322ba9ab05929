import { getJson, type ViewerConfig } from "./api.ts";
import { formatTime, h, replaceChildren } from "./dom.ts";

interface ListedSession {
  id: string;
  mode: string;
  created_at: string;
  updated_at: string;
}

interface SessionPage {
  sessions: ListedSession[];
  offset: number;
  limit: number;
  has_more: boolean;
}

/** Filters live in the page's query string (never the token). */
function readFilters(): { kind: string; tool: string; search: string; offset: number } {
  const params = new URLSearchParams(location.search);
  const offset = Number(params.get("offset") ?? "0");
  return {
    kind: params.get("kind") ?? "",
    tool: params.get("tool") ?? "",
    search: params.get("search") ?? "",
    offset: Number.isInteger(offset) && offset >= 0 ? offset : 0,
  };
}

function filterField(
  name: "kind" | "tool",
  label: string,
  value: string,
  options: readonly string[] | undefined,
): HTMLElement {
  const id = `filter-${name}`;
  const control =
    options && options.length > 0
      ? h(
          "select",
          { id, name },
          h("option", { value: "" }, "Any"),
          options.map((option) => h("option", { value: option, selected: option === value }, option)),
        )
      : h("input", { id, name, type: "text", value, placeholder: "Any" });
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

/** The session list: newest first, filter by kind and tool, search, paginate. */
export async function renderListPage(config: ViewerConfig, main: HTMLElement): Promise<void> {
  const filters = readFilters();
  const query = new URLSearchParams({ limit: String(config.pageSize), offset: String(filters.offset) });
  if (filters.kind) query.set("kind", filters.kind);
  if (filters.tool) query.set("tool", filters.tool);
  if (filters.search) query.set("search", filters.search);
  const page = await getJson<SessionPage>(config, `sessions?${query.toString()}`);
  document.title = "Sessions · Deliberate";

  const form = h(
    "form",
    { class: "filters", role: "search", "aria-label": "Filter sessions", method: "get", action: config.base },
    filterField("kind", "Kind", filters.kind, config.filterOptions.kinds),
    filterField("tool", "Tool", filters.tool, config.filterOptions.tools),
    h(
      "div",
      { class: "field" },
      h("label", { for: "filter-search" }, "Search"),
      h("input", { id: "filter-search", name: "search", type: "search", value: filters.search }),
    ),
    h("button", { type: "submit" }, "Filter"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const next = new URLSearchParams();
    for (const name of ["kind", "tool", "search"]) {
      const value = String(data.get(name) ?? "").trim();
      if (value) next.set(name, value);
    }
    location.search = next.toString();
  });

  const pageLink = (offset: number, label: string, rel: string) => {
    const params = new URLSearchParams(location.search);
    params.set("offset", String(offset));
    return h("a", { href: `${config.base}?${params.toString()}`, rel, class: "page-link" }, label);
  };

  const rows = page.sessions.map((session) =>
    h(
      "tr",
      { "data-session-id": session.id },
      h("td", {}, h("a", { href: `${config.base}/sessions/${encodeURIComponent(session.id)}` }, session.id)),
      h("td", {}, h("span", { class: "badge" }, session.mode)),
      h("td", {}, formatTime(session.updated_at)),
      h("td", {}, formatTime(session.created_at)),
    ),
  );

  replaceChildren(
    main,
    h("h1", {}, "Sessions"),
    form,
    page.sessions.length === 0
      ? h(
          "p",
          { class: "empty" },
          filters.kind || filters.tool || filters.search ? "No session matches these filters." : "No sessions yet.",
        )
      : h(
          "table",
          { class: "sessions" },
          h("caption", {}, `Sessions ${page.offset + 1}–${page.offset + page.sessions.length}, newest first`),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Session"),
              h("th", { scope: "col" }, "Kind"),
              h("th", { scope: "col" }, "Updated"),
              h("th", { scope: "col" }, "Created"),
            ),
          ),
          h("tbody", {}, rows),
        ),
    h(
      "nav",
      { class: "pagination", "aria-label": "Pages" },
      page.offset > 0 ? pageLink(Math.max(0, page.offset - page.limit), "Newer", "prev") : null,
      page.has_more ? pageLink(page.offset + page.limit, "Older", "next") : null,
    ),
  );
}

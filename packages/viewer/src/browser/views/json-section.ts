import { h } from "../dom.ts";

const maxCharacters = 100_000;

/** Any section data as formatted JSON text (for sections no view draws). */
export function renderJsonSection(data: unknown): HTMLElement {
  let text = JSON.stringify(data, null, 2) ?? String(data);
  const cut = text.length > maxCharacters;
  if (cut) text = text.slice(0, maxCharacters);
  return h(
    "div",
    { class: "json-section" },
    h("pre", { class: "json", tabindex: 0 }, text),
    cut ? h("p", { class: "muted" }, `Cut at ${maxCharacters.toLocaleString("en")} characters.`) : null,
  );
}

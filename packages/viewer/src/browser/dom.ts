/**
 * DOM helpers. Every piece of session data reaches the page as a text node or
 * an attribute value set with setAttribute, never as HTML: no function here
 * parses markup, so reasoning text cannot inject script.
 */

export type Child = Node | string | number | null | undefined | false | readonly Child[];
type AttributeValue = string | number | boolean | null | undefined;
export type Attributes = Record<string, AttributeValue | ((event: Event) => void)>;

const svgNamespace = "http://www.w3.org/2000/svg";

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.appendChild(child);
    else parent.appendChild(document.createTextNode(String(child)));
  }
}

function apply(element: Element, attributes: Attributes | undefined): void {
  if (!attributes) return;
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value);
      continue;
    }
    element.setAttribute(name, value === true ? "" : String(value));
  }
}

/** An HTML element with attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Attributes,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, attributes);
  append(element, children);
  return element;
}

/** An SVG element with attributes and children. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes?: Attributes,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(svgNamespace, tag);
  apply(element, attributes);
  append(element, children);
  return element;
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A number to 2 decimals (or an em dash when missing). */
export function formatNumber(value: unknown, digits = 2): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "—";
}

/** A signed change, e.g. +2 or -0.5. */
export function formatChange(value: number): string {
  const rounded = Math.round(value * 1000) / 1000;
  return `${rounded > 0 ? "+" : ""}${rounded}`;
}

/** A timestamp shown in UTC, stable whatever the browser's zone (pictures must not depend on it). */
export function formatTime(value: unknown): string {
  if (typeof value !== "string") return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Text cut to `max` characters with an ellipsis. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, Math.max(1, max - 1))}…`;
}

/** A horizontal bar for a value in 0..1 (decorative: the number is always given as text beside it). */
export function bar(fraction: number, className = ""): HTMLElement {
  const fill = h("span", { class: "bar-fill" });
  fill.style.width = `${Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 10}%`;
  return h("span", { class: `bar ${className}`.trim(), "aria-hidden": "true" }, fill);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback;
}

export function asNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** A description list from label/value pairs (values missing are left out). */
export function facts(pairs: ReadonlyArray<readonly [string, Child]>): HTMLElement {
  const list = h("dl", { class: "facts" });
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === "") continue;
    list.append(h("div", {}, h("dt", {}, label), h("dd", {}, value)));
  }
  return list;
}

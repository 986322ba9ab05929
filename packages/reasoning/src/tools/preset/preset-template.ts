import type { ArgumentTemplate, PresetReference } from "./preset-definition.ts";

/** What references resolve against while a preset runs. */
export interface TemplateScope {
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly results: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  readonly sessionId: string | undefined;
}

/** A parsed reference: `input.<name>…`, `steps.<id>…` or `session_id`. */
export type ParsedReference =
  | { kind: "input"; name: string; path: string[] }
  | { kind: "step"; name: string; path: string[] }
  | { kind: "session" };

/** A reference found in a template, with where it was found (for load-time errors). */
export interface FoundReference {
  text: string;
  location: string;
  pluck?: string;
}

const placeholder = /\{\{\s*([^{}]+?)\s*\}\}/g;

export function isReference(value: unknown): value is PresetReference {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "$ref" in value;
}

/** Parses a reference, or returns why it is not one. */
export function parseReference(text: string): ParsedReference | { error: string } {
  const segments = text.split(".");
  const [root, name, ...path] = segments;
  if (segments.some((segment) => segment === "")) return { error: `'${text}' has an empty path segment` };
  if (root === "session_id" && segments.length === 1) return { kind: "session" };
  if ((root === "input" || root === "steps") && name !== undefined) {
    return { kind: root === "input" ? "input" : "step", name, path };
  }
  return { error: `'${text}' is not a reference: use input.<name>, steps.<step id>[.field…] or session_id` };
}

/** Every reference in a template, depth first. */
export function collectReferences(template: ArgumentTemplate, location: string): FoundReference[] {
  if (typeof template === "string") {
    return [...template.matchAll(placeholder)].map((match) => ({ text: (match[1] as string).trim(), location }));
  }
  if (template === null || typeof template !== "object") return [];
  if (isReference(template)) {
    return [{ text: template.$ref, location, ...(template.pluck !== undefined ? { pluck: template.pluck } : {}) }];
  }
  if (Array.isArray(template))
    return template.flatMap((item: ArgumentTemplate, index: number) => collectReferences(item, `${location}.${index}`));
  return Object.entries(template).flatMap(([key, value]) =>
    collectReferences(value as ArgumentTemplate, `${location}.${key}`),
  );
}

/** Keys beginning with `$` other than a reference's own (typo protection for `$ref`). */
export function strayDollarKeys(template: ArgumentTemplate, location: string): string[] {
  if (template === null || typeof template !== "object") return [];
  if (Array.isArray(template))
    return template.flatMap((item: ArgumentTemplate, index: number) => strayDollarKeys(item, `${location}.${index}`));
  if (isReference(template)) {
    return Object.keys(template)
      .filter((key) => key !== "$ref" && key !== "pluck")
      .map((key) => `${location}.${key}`);
  }
  return Object.entries(template).flatMap(([key, value]) =>
    key.startsWith("$") ? [`${location}.${key}`] : strayDollarKeys(value as ArgumentTemplate, `${location}.${key}`),
  );
}

function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current)) {
      const index = Number(segment);
      current = Number.isInteger(index) ? current[index] : undefined;
    } else if (typeof current === "object" && current !== null) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** The value a reference names in the scope; undefined when it is absent. */
export function lookup(reference: string, scope: TemplateScope): unknown {
  const parsed = parseReference(reference);
  if ("error" in parsed) throw new Error(parsed.error); // presets are validated at load; this is a bug
  switch (parsed.kind) {
    case "session":
      return scope.sessionId;
    case "input":
      return walk(scope.inputs[parsed.name], parsed.path);
    case "step":
      return walk(scope.results.get(parsed.name), parsed.path);
  }
}

/** Keys that never appear in rendered text: record ids and timestamps change from run to run. */
function isHiddenKey(key: string): boolean {
  return key === "id" || key.endsWith("_id") || key.endsWith("_ids") || key.endsWith("_at") || key === "metadata";
}

/** Fields that name an item; the first present leads its line. */
const headKeys = ["viewpoint", "option", "name", "label", "type", "title", "claim", "content", "text", "step"] as const;
/** Fields that describe an item at length; the first present follows its head after a colon. */
const bodyKeys = ["content", "text", "description", "summary", "assessment"] as const;

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}

function words(key: string): string {
  return key.replaceAll("_", " ");
}

function visibleEntries(record: Readonly<Record<string, unknown>>): Array<[string, unknown]> {
  return Object.entries(record).filter(([key, value]) => !isHiddenKey(key) && value !== undefined && value !== null);
}

/** A value on one line: scalars as text, lists joined with "; ", objects as "key value" pairs. */
function inline(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (Array.isArray(value))
    return value
      .map((item) =>
        typeof item === "object" && item !== null && !Array.isArray(item)
          ? item_(item as Record<string, unknown>)
          : inline(item),
      )
      .join("; ");
  return visibleEntries(value as Record<string, unknown>)
    .map(([key, item]) => `${words(key)} ${inline(item)}`)
    .join(", ");
}

/** One item of a list of records: "head: body (number fields) — other text fields". */
function item_(record: Readonly<Record<string, unknown>>): string {
  const entries = visibleEntries(record);
  const text = (key: string) =>
    typeof record[key] === "string" && !isHiddenKey(key) ? (record[key] as string) : undefined;
  const head = headKeys.find((key) => text(key) !== undefined);
  const body = head === undefined ? undefined : bodyKeys.find((key) => key !== head && text(key) !== undefined);
  const used = new Set<string>([head, body].filter((key): key is NonNullable<typeof key> => key !== undefined));
  const scalars = entries.filter(
    ([key, value]) => !used.has(key) && (typeof value === "number" || typeof value === "boolean"),
  );
  const others = entries.filter(
    ([key, value]) => !used.has(key) && typeof value !== "number" && typeof value !== "boolean",
  );
  const lead = [head !== undefined ? text(head) : undefined, body !== undefined ? text(body) : undefined]
    .filter((part) => part !== undefined && part !== "")
    .join(": ");
  const numbers =
    scalars.length > 0 ? `(${scalars.map(([key, value]) => `${words(key)} ${inline(value)}`).join(", ")})` : "";
  const rest = others
    .map(([key, value]) => [key, inline(value)] as const)
    .filter(([, value]) => value !== "")
    .map(([key, value]) => `${words(key)}: ${value}`)
    .join("; ");
  return [lead, numbers, rest === "" ? "" : lead === "" && numbers === "" ? rest : `— ${rest}`]
    .filter((part) => part !== "")
    .join(" ");
}

/**
 * How a value reads inside a prompt: text for the model, never a raw record.
 * Strings as they are; numbers to four significant digits; lists one
 * `- item` per line, a record item as "head: body (numbers) — other fields";
 * a record as one "key: value" line per field. Ids and timestamps are left
 * out, so the text of a result is the same on every run (host-executed calls
 * replay their steps, and a prompt that changed would be asked again).
 */
export function renderValue(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return inline(value);
  if (Array.isArray(value)) {
    return value
      .map((item) =>
        typeof item === "object" && item !== null && !Array.isArray(item)
          ? item_(item as Record<string, unknown>)
          : inline(item),
      )
      .filter((line) => line !== "")
      .map((line) => `- ${line}`)
      .join("\n");
  }
  return visibleEntries(value as Record<string, unknown>)
    .map(([key, item]) => [key, inline(item)] as const)
    .filter(([, text]) => text !== "")
    .map(([key, text]) => `${words(key)}: ${text}`)
    .join("\n");
}

function pluck(value: unknown, field: string): unknown {
  if (!Array.isArray(value)) return undefined;
  return value.map((item) => walk(item, field.split("."))).filter((item) => item !== undefined);
}

/** Resolves a template against the scope (see ArgumentTemplate for the rules). */
export function resolveTemplate(template: ArgumentTemplate, scope: TemplateScope): unknown {
  if (typeof template === "string")
    return template.replace(placeholder, (_match, reference: string) => renderValue(lookup(reference.trim(), scope)));
  if (template === null || typeof template !== "object") return template;
  if (isReference(template)) {
    const value = lookup(template.$ref, scope);
    return template.pluck !== undefined ? pluck(value, template.pluck) : value;
  }
  if (Array.isArray(template)) {
    return template.map((item: ArgumentTemplate) => resolveTemplate(item, scope)).filter((item) => item !== undefined);
  }
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(template)) {
    const item = resolveTemplate(value as ArgumentTemplate, scope);
    if (item !== undefined) resolved[key] = item;
  }
  return resolved;
}

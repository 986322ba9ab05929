import type { Session, Thought } from "@deliberate/contracts";
import type { SessionSection } from "../define-module.ts";
import type { SessionRecord } from "../engine/read-session.ts";

/** The formats a session can be exported in. */
export type SessionExportFormat = "json" | "markdown" | "mermaid";

export const sessionExportMimeTypes: Readonly<Record<SessionExportFormat, string>> = {
  json: "application/json",
  markdown: "text/markdown",
  mermaid: "text/vnd.mermaid",
};

/** Where a session can be seen drawn (the viewer's page for it), linked from the Markdown export. */
export interface SessionExportOptions {
  viewerUrl?: string;
  /** The number of the record's first thought in the session (a window's offset + 1), so a window's thoughts keep their session numbers; default 1. */
  firstThoughtNumber?: number;
}

/** Renders a session in one of the export formats. */
export function exportSession(
  record: SessionRecord,
  format: SessionExportFormat,
  sections: readonly SessionSection[] = [],
  options: SessionExportOptions = {},
): string {
  switch (format) {
    case "json":
      return JSON.stringify(record, null, 2);
    case "markdown":
      return sessionToMarkdown(record, sections, options);
    case "mermaid":
      return sessionToMermaid(record, sections);
  }
}

/** A readable transcript: every thought in order (set-aside ones marked), then each module section. */
export function sessionToMarkdown(
  record: SessionRecord,
  sections: readonly SessionSection[] = [],
  options: SessionExportOptions = {},
): string {
  const { session, thoughts } = record;
  const lines = markdownHeaderLines(session, options);
  if (thoughts.length === 0) lines.push(...markdownNoThoughtLines);
  const first = options.firstThoughtNumber ?? 1;
  thoughts.forEach((thought, index) => {
    lines.push(...markdownThoughtLines(thought, index + first));
  });
  lines.push(...markdownSectionLines(record, sections));
  return lines.join("\n");
}

/** The Markdown export's opening lines: the session's facts, then the "## Thoughts" heading (shared with the streamed export). */
export function markdownHeaderLines(session: Session, options: SessionExportOptions = {}): string[] {
  return [
    `# Session ${session.id}`,
    "",
    `- Mode: ${session.mode}`,
    `- Created: ${session.created_at}`,
    `- Updated: ${session.updated_at}`,
    `- Focus branch: ${session.active_branch_id ?? "none"}`,
    ...(options.viewerUrl !== undefined ? [`- Drawn: [open in the session viewer](${options.viewerUrl})`] : []),
    "",
    "## Thoughts",
    "",
  ];
}

/** What the Markdown export says for a session without thoughts. */
export const markdownNoThoughtLines: readonly string[] = ["(none)", ""];

/** One thought of the Markdown export, `number` counting from 1 in session order. */
export function markdownThoughtLines(thought: Thought, number: number): string[] {
  const confidence = thought.confidence === null ? "" : `, confidence ${thought.confidence}`;
  const status = thought.status === "superseded" ? " — superseded by a checkpoint restore" : "";
  const branch = thought.branch_id ? `, branch ${thought.branch_id}` : "";
  return [
    `### ${number}. ${thought.mode}${confidence}${branch}${status}`,
    "",
    `<!-- ${thought.id} -->`,
    "",
    thought.content,
    "",
  ];
}

/** Each module section's Markdown that has any, after the thoughts. */
export function markdownSectionLines(
  record: Readonly<Record<string, unknown>>,
  sections: readonly SessionSection[],
): string[] {
  const lines: string[] = [];
  for (const section of sections) {
    const data = record[section.name];
    const markdown = data !== undefined && section.markdown ? section.markdown(data) : "";
    if (markdown !== "") lines.push(markdown, "");
  }
  return lines;
}

/** A flowchart of the thoughts (parent -> child) and each module section's records; superseded thoughts are dashed. */
export function sessionToMermaid(record: SessionRecord, sections: readonly SessionSection[] = []): string {
  const lines = ["flowchart TD"];
  const ids = new Map<string, string>();
  const node = (id: string) => {
    let name = ids.get(id);
    if (!name) {
      name = `n${ids.size + 1}`;
      ids.set(id, name);
    }
    return name;
  };
  for (const thought of record.thoughts) {
    lines.push(`  ${node(thought.id)}["${mermaidLabel(`${thought.mode}: ${thought.content}`)}"]`);
  }
  for (const thought of record.thoughts) {
    if (thought.parent_id && ids.has(thought.parent_id))
      lines.push(`  ${node(thought.parent_id)} --> ${node(thought.id)}`);
  }
  for (const section of sections) {
    const data = record[section.name];
    if (data !== undefined && section.mermaid) lines.push(...section.mermaid(data, node));
  }
  const superseded = record.thoughts
    .filter((thought) => thought.status === "superseded")
    .map((thought) => node(thought.id));
  if (superseded.length > 0) {
    lines.push("  classDef superseded stroke-dasharray: 5 5,opacity:0.6", `  class ${superseded.join(",")} superseded`);
  }
  return `${lines.join("\n")}\n`;
}

/** A Mermaid label: one line, at most 80 characters, quotes and angle brackets escaped. */
export function mermaidLabel(text: string): string {
  // Most labels need no rewriting: one scan decides (exports call this once per thought).
  const flat = needsFlattening.test(text) ? text.replace(/\s+/g, " ").trim() : text;
  const short = flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
  return needsEscaping.test(short)
    ? short.replace(/"/g, "#quot;").replace(/[<>]/g, (character) => (character === "<" ? "#lt;" : "#gt;"))
    : short;
}

/** Whitespace other than single inner spaces (line breaks, tabs, runs, leading or trailing). */
const needsFlattening = /[^\S ]| {2}|^ | $/;
const needsEscaping = /["<>]/;

/** A Markdown table cell: one line, at most 120 characters, pipes escaped. */
export function tableCell(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return (flat.length > 120 ? `${flat.slice(0, 119)}…` : flat).replace(/\|/g, "\\|");
}

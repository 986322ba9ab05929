import type { SessionRecord } from "../engine.ts";

/** The formats a session can be exported in. */
export type SessionExportFormat = "json" | "markdown" | "mermaid";

export const sessionExportMimeTypes: Readonly<Record<SessionExportFormat, string>> = {
  json: "application/json",
  markdown: "text/markdown",
  mermaid: "text/vnd.mermaid",
};

/** Renders a session in one of the export formats. */
export function exportSession(record: SessionRecord, format: SessionExportFormat): string {
  switch (format) {
    case "json":
      return JSON.stringify(record, null, 2);
    case "markdown":
      return sessionToMarkdown(record);
    case "mermaid":
      return sessionToMermaid(record);
  }
}

/** A readable transcript: every thought in order (set-aside ones marked), branches and checkpoints. */
export function sessionToMarkdown(record: SessionRecord): string {
  const { session, thoughts, branches, checkpoints } = record;
  const lines = [
    `# Session ${session.id}`,
    "",
    `- Mode: ${session.mode}`,
    `- Created: ${session.created_at}`,
    `- Updated: ${session.updated_at}`,
    `- Focus branch: ${session.active_branch_id ?? "none"}`,
    "",
    "## Thoughts",
    "",
  ];
  if (thoughts.length === 0) lines.push("(none)", "");
  thoughts.forEach((thought, index) => {
    const confidence = thought.confidence === null ? "" : `, confidence ${thought.confidence}`;
    const status = thought.status === "superseded" ? " — superseded by a checkpoint restore" : "";
    const branch = thought.branch_id ? `, branch ${thought.branch_id}` : "";
    lines.push(`### ${index + 1}. ${thought.mode}${confidence}${branch}${status}`, "", `<!-- ${thought.id} -->`, "", thought.content, "");
  });
  if (branches.length > 0) {
    lines.push("## Branches", "", "| id | parent | status | score | content |", "|---|---|---|---|---|");
    for (const branch of branches) {
      lines.push(`| ${branch.id} | ${branch.parent_branch_id ?? "—"} | ${branch.status} | ${branch.score} | ${tableCell(branch.content)} |`);
    }
    lines.push("");
  }
  if (record.graph) {
    const { graph, nodes } = record.graph;
    lines.push(`## Graph of thoughts`, "", `Root ${graph.root_node_id}; ${nodes.length} nodes (limits: ${graph.max_nodes} nodes, depth ${graph.max_depth}).`, "");
    lines.push("| id | parent | kind | depth | score | status | content |", "|---|---|---|---|---|---|---|");
    for (const node of nodes) {
      lines.push(`| ${node.id} | ${node.parent_id ?? "—"} | ${node.kind} | ${node.depth} | ${node.score ?? "—"} | ${node.status}${node.is_terminal ? ", terminal" : ""} | ${tableCell(node.content)} |`);
    }
    lines.push("");
  }
  for (const timeline of record.timelines ?? []) {
    lines.push(`## Timeline ${timeline.id}`, "", `Current branch: ${timeline.current_branch_id}`, "");
    for (const branch of timeline.branches) {
      const merged = branch.merged_into_id ? ` → merged into ${branch.merged_into_id}` : "";
      lines.push(`- **${branch.label}** (${branch.id}, ${branch.status}${merged}): ${tableCell(branch.content)}`);
    }
    lines.push("");
  }
  if (record.search_nodes && record.search_nodes.length > 0) {
    lines.push("## Search tree (MCTS)", "", "| id | parent | depth | visits | mean value | content |", "|---|---|---|---|---|---|");
    for (const node of record.search_nodes) {
      const mean = node.visits > 0 ? (node.total_value / node.visits).toFixed(3) : "—";
      lines.push(`| ${node.id} | ${node.parent_id ?? "—"} | ${node.depth} | ${node.visits} | ${mean} | ${tableCell(node.content)} |`);
    }
    lines.push("");
  }
  if (checkpoints.length > 0) {
    lines.push("## Checkpoints", "");
    for (const checkpoint of checkpoints) {
      lines.push(`- **${checkpoint.name}** (${checkpoint.id}, ${checkpoint.created_at}): ${checkpoint.thought_count} thoughts${checkpoint.description ? ` — ${checkpoint.description}` : ""}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

/** A flowchart of the thoughts (parent -> child) and the tree branches; superseded thoughts are dashed. */
export function sessionToMermaid(record: SessionRecord): string {
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
    if (thought.parent_id && ids.has(thought.parent_id)) lines.push(`  ${node(thought.parent_id)} --> ${node(thought.id)}`);
  }
  for (const branch of record.branches) {
    lines.push(`  ${node(branch.id)}{{"${mermaidLabel(`${branch.status} ${branch.score}: ${branch.content}`)}"}}`);
    if (branch.parent_branch_id) lines.push(`  ${node(branch.parent_branch_id)} -.-> ${node(branch.id)}`);
  }
  for (const graphNode of record.graph?.nodes ?? []) {
    lines.push(`  ${node(graphNode.id)}(["${mermaidLabel(`${graphNode.kind} ${graphNode.score ?? "?"}: ${graphNode.content}`)}"])`);
  }
  for (const edge of record.graph?.edges ?? []) {
    lines.push(`  ${node(edge.from_node_id)} -->|${edge.kind}| ${node(edge.to_node_id)}`);
  }
  for (const searchNode of record.search_nodes ?? []) {
    lines.push(`  ${node(searchNode.id)}[/"${mermaidLabel(`${searchNode.visits} visits: ${searchNode.content}`)}"/]`);
    if (searchNode.parent_id) lines.push(`  ${node(searchNode.parent_id)} --> ${node(searchNode.id)}`);
  }
  const superseded = record.thoughts.filter((thought) => thought.status === "superseded").map((thought) => node(thought.id));
  if (superseded.length > 0) {
    lines.push("  classDef superseded stroke-dasharray: 5 5,opacity:0.6", `  class ${superseded.join(",")} superseded`);
  }
  return `${lines.join("\n")}\n`;
}

function mermaidLabel(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const short = flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
  return short.replace(/"/g, "#quot;").replace(/[<>]/g, (character) => (character === "<" ? "#lt;" : "#gt;"));
}

function tableCell(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return (flat.length > 120 ? `${flat.slice(0, 119)}…` : flat).replace(/\|/g, "\\|");
}

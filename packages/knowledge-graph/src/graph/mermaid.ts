import type { KnowledgeSubgraph } from "@deliberate/contracts";

function label(text: string): string {
  return (
    text
      .replace(/["\n\r]/g, " ")
      .replace(/[<>]/g, "")
      .trim() || " "
  );
}

/**
 * Mermaid lines (no header) of a graph: entities as nodes (name and type),
 * relations as labelled edges; asserted solid, derived thick, hypothesized
 * dotted, retracted dotted and marked. `node(id)` names a node for an entity id.
 */
export function subgraphMermaidLines(subgraph: KnowledgeSubgraph, node: (entityId: string) => string): string[] {
  const lines: string[] = [];
  const idByName = new Map<string, string>();
  for (const entity of subgraph.entities) {
    idByName.set(entity.name, entity.id);
    lines.push(`  ${node(entity.id)}["${label(entity.name)} (${label(entity.type)})"]`);
  }
  for (const relation of subgraph.relations) {
    const from = idByName.get(relation.subject);
    const to = idByName.get(relation.object);
    if (from === undefined || to === undefined) continue;
    const text = label(relation.validity === "retracted" ? `${relation.predicate} (retracted)` : relation.predicate);
    const arrow = relation.validity === "derived" ? "==>" : relation.validity === "asserted" ? "-->" : "-.->";
    lines.push(`  ${node(from)} ${arrow}|"${text}"| ${node(to)}`);
  }
  return lines;
}

/** A graph as a complete Mermaid flowchart (`graph LR`). */
export function subgraphToMermaid(subgraph: KnowledgeSubgraph): string {
  const names = new Map<string, string>();
  const node = (id: string) => {
    let name = names.get(id);
    if (name === undefined) {
      name = `n${names.size}`;
      names.set(id, name);
    }
    return name;
  };
  return ["graph LR", ...subgraphMermaidLines(subgraph, node)].join("\n");
}

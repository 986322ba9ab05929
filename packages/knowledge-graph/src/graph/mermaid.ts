import type { KnowledgeSubgraph } from "@deliberate/contracts";

function label(text: string): string {
  return text.replace(/["\n\r]/g, " ").replace(/[<>]/g, "").trim() || " ";
}

/**
 * A graph as a Mermaid flowchart: entities as nodes (name and type),
 * relations as labelled edges; asserted solid, derived thick, hypothesized
 * dotted, retracted dotted and marked.
 */
export function subgraphToMermaid(subgraph: KnowledgeSubgraph): string {
  const lines = ["graph LR"];
  const nodeIds = new Map<string, string>();
  subgraph.entities.forEach((entity, index) => {
    const nodeId = `n${index}`;
    nodeIds.set(entity.name, nodeId);
    lines.push(`  ${nodeId}["${label(entity.name)}<br/><i>${label(entity.type)}</i>"]`);
  });
  for (const relation of subgraph.relations) {
    const from = nodeIds.get(relation.subject);
    const to = nodeIds.get(relation.object);
    if (from === undefined || to === undefined) continue;
    const text = label(relation.validity === "retracted" ? `${relation.predicate} (retracted)` : relation.predicate);
    const arrow = relation.validity === "derived" ? "==>" : relation.validity === "asserted" ? "-->" : "-.->";
    lines.push(`  ${from} ${arrow}|"${text}"| ${to}`);
  }
  return lines.join("\n");
}

import type { KnowledgeSubgraph } from "@deliberate/contracts";
import { type SessionSection, tableCell } from "@deliberate/engine";
import { subgraphMermaidLines } from "./graph/mermaid.ts";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import type { StoredSession } from "./storage/knowledge-graph.repository.ts";

/** A knowledge-graph session as exports, resources and the viewer show it. */
export interface KnowledgeGraphSectionData {
  state: StoredSession["state"];
  revision: number;
  calls: number;
  goalQuery: string;
  firstTaskId: string;
  lastActiveAt: string;
  closedAt: string | null;
  graph: KnowledgeSubgraph;
}

/** Reads a session's whole graph in wire form (entities by id, relations by entity name). */
export async function readKnowledgeGraph(store: KnowledgeGraphRepositories, sessionId: string): Promise<KnowledgeGraphSectionData | undefined> {
  const session = await store.knowledgeGraph.findSession(sessionId);
  if (!session) return undefined;
  const { entities, relations } = await store.knowledgeGraph.loadGraph(sessionId);
  const names = new Map(entities.map((entity) => [entity.id, entity.name]));
  return {
    state: session.state,
    revision: session.revision,
    calls: session.calls,
    goalQuery: session.goalQuery,
    firstTaskId: session.firstTaskId,
    lastActiveAt: session.lastActiveAt,
    closedAt: session.closedAt,
    graph: {
      entities: entities.map((entity) => ({
        id: entity.id,
        name: entity.name,
        type: entity.type,
        observations: entity.observations,
        confidence: entity.confidence,
        validity: entity.validity,
        provenance: entity.provenance,
      })),
      relations: relations.map((relation) => ({
        id: relation.id,
        subject: names.get(relation.subjectId) ?? relation.subjectId,
        predicate: relation.predicate,
        object: names.get(relation.objectId) ?? relation.objectId,
        confidence: relation.confidence,
        validity: relation.validity,
        status: relation.status,
        conflictsWith: relation.conflictsWith,
        provenance: relation.provenance,
        derivation: relation.derivation,
      })),
    },
  };
}

/** The `knowledgeGraph` section of session exports (JSON), with Markdown and Mermaid renderings. */
export const knowledgeGraphSection: SessionSection<KnowledgeGraphRepositories> = {
  name: "knowledgeGraph",
  read: (store, sessionId) => readKnowledgeGraph(store, sessionId),
  markdown(data) {
    const section = data as KnowledgeGraphSectionData;
    const lines = [
      "## Knowledge graph",
      "",
      `Goal: ${section.goalQuery}. State ${section.state} (revision ${section.revision}, ${section.calls} call(s)); ${section.graph.entities.length} entities, ${section.graph.relations.length} relations.`,
      "",
      "| entity | type | validity | confidence | source | observations |",
      "|---|---|---|---|---|---|",
      ...section.graph.entities.map(
        (entity) => `| ${tableCell(entity.name)} | ${tableCell(entity.type)} | ${entity.validity} | ${entity.confidence} | ${entity.provenance.kind} (${tableCell(entity.provenance.taskId)}) | ${tableCell(entity.observations.join("; "))} |`,
      ),
      "",
      "| subject | predicate | object | validity | confidence | source | derivation |",
      "|---|---|---|---|---|---|---|",
      ...section.graph.relations.map(
        (relation) =>
          `| ${tableCell(relation.subject)} | ${relation.predicate} | ${tableCell(relation.object)} | ${relation.validity} | ${relation.confidence} | ${relation.provenance.kind} (${tableCell(relation.provenance.taskId)}) | ${relation.derivation ? tableCell(`${relation.derivation.rule}: ${relation.derivation.premises.map((premise) => `${premise.subject} ${premise.predicate} ${premise.object}`).join(" & ")}`) : "—"} |`,
      ),
    ];
    return lines.join("\n");
  },
  mermaid(data, node) {
    return subgraphMermaidLines((data as KnowledgeGraphSectionData).graph, node);
  },
};

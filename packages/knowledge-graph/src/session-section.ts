import type { KnowledgeSubgraph, Triple } from "@deliberate/contracts";
import { type SessionSection, tableCell } from "@deliberate/engine";
import { subgraphMermaidLines } from "./graph/mermaid.ts";
import type { KnowledgeGraphRepositories } from "./orchestrator/reasoning-run.ts";
import type { StoredSession } from "./store/repositories/knowledge-graph.repository.ts";

/**
 * A knowledge-graph session as exports, resources and the viewer show it. The
 * entities and relations are lists one level down (`knowledgeGraph.entities`,
 * `knowledgeGraph.relations`), so session reads page them with `?limit&offset`
 * like thoughts; `entityCount` and `relationCount` are the whole graph's sizes.
 */
export interface KnowledgeGraphSectionData {
  state: StoredSession["state"];
  revision: number;
  calls: number;
  goalQuery: string;
  firstTaskId: string;
  lastActiveAt: string;
  closedAt: string | null;
  entityCount: number;
  relationCount: number;
  entities: KnowledgeSubgraph["entities"];
  relations: KnowledgeSubgraph["relations"];
}

/** Reads a session's whole graph in wire form (entities by id, relations by entity name). */
export async function readKnowledgeGraph(
  store: KnowledgeGraphRepositories,
  sessionId: string,
): Promise<KnowledgeGraphSectionData | undefined> {
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
    entityCount: entities.length,
    relationCount: relations.length,
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
  };
}

/** A triple as one line of text, e.g. "Alice parent_of Bob". */
function tripleText(triple: Triple): string {
  return `${triple.subject} ${triple.predicate} ${triple.object}`;
}

/** How much of the graph a (possibly paged) section shows, e.g. "100 of 2000 entities (this page)". */
function shownOf(shown: number, total: number, what: string): string {
  return shown === total ? `${total} ${what}` : `${shown} of ${total} ${what} (this page)`;
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
      `Goal: ${section.goalQuery}. State ${section.state} (revision ${section.revision}, ${section.calls} call(s)); ${shownOf(section.entities.length, section.entityCount ?? section.entities.length, "entities")}, ${shownOf(section.relations.length, section.relationCount ?? section.relations.length, "relations")}.`,
      "",
      "| entity | type | validity | confidence | source | observations |",
      "|---|---|---|---|---|---|",
      ...section.entities.map(
        (entity) =>
          `| ${tableCell(entity.name)} | ${tableCell(entity.type)} | ${entity.validity} | ${entity.confidence} | ${entity.provenance.kind} (${tableCell(entity.provenance.taskId)}) | ${tableCell(entity.observations.join("; "))} |`,
      ),
      "",
      "| subject | predicate | object | status | validity | confidence | source | derivation | conflicts with |",
      "|---|---|---|---|---|---|---|---|---|",
      ...section.relations.map(
        (relation) =>
          `| ${tableCell(relation.subject)} | ${relation.predicate} | ${tableCell(relation.object)} | ${relation.status} | ${relation.validity} | ${relation.confidence} | ${relation.provenance.kind} (${tableCell(relation.provenance.taskId)}) | ${relation.derivation ? tableCell(`${relation.derivation.rule}: ${relation.derivation.premises.map(tripleText).join(" & ")}`) : "—"} | ${relation.conflictsWith.length > 0 ? tableCell(relation.conflictsWith.map(tripleText).join("; ")) : "—"} |`,
      ),
    ];
    return lines.join("\n");
  },
  mermaid(data, node) {
    const section = data as KnowledgeGraphSectionData;
    return subgraphMermaidLines({ entities: section.entities, relations: section.relations }, node);
  },
};

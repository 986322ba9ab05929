import type { KnowledgeEntity, KnowledgeRelation, KnowledgeSubgraph } from "@deliberate/contracts";
import { nameTokens, normalizeEntityName } from "../algorithms/names.ts";
import type { GraphEntity, GraphRelation, WorkingGraph } from "./working-graph.ts";

/** How much of the graph a prompt shows at most, however large the graph grows. */
export const promptGraphLimits = {
  entities: 40,
  relations: 80,
  observationsPerEntity: 3,
  observationLength: 200,
} as const;

export interface Focus {
  /** Text the selection should be relevant to (the goal, a plan step's purpose). */
  query: string;
  /** Entity keys that must be shown (e.g. what the step is about). */
  include?: readonly string[];
  maxEntities?: number;
  maxRelations?: number;
}

export interface SelectedSubgraph {
  entities: GraphEntity[];
  relations: GraphRelation[];
  /** Totals of the whole graph, to tell the model what it does not see. */
  totalEntities: number;
  totalRelations: number;
}

/**
 * The bounded part of the graph a prompt shows: entities ranked by what must
 * be included, then by shared words with the query, then by what this call
 * added, then by degree; ties by insertion order. Relations among the chosen
 * entities, fresh first. Deterministic for the same graph and focus.
 */
export function selectSubgraph(graph: WorkingGraph, focus: Focus): SelectedSubgraph {
  const maxEntities = focus.maxEntities ?? promptGraphLimits.entities;
  const maxRelations = focus.maxRelations ?? promptGraphLimits.relations;
  const queryTokens = new Set(nameTokens(normalizeEntityName(focus.query)));
  const include = new Set(focus.include ?? []);
  const degree = new Map<string, number>();
  for (const relation of graph.relations()) {
    degree.set(relation.subject, (degree.get(relation.subject) ?? 0) + 1);
    degree.set(relation.object, (degree.get(relation.object) ?? 0) + 1);
  }
  const ranked = graph.entities().map((entity, position) => {
    const overlap = nameTokens(entity.key).filter((token) => queryTokens.has(token)).length;
    const score =
      (include.has(entity.key) ? 1000 : 0) +
      overlap * 10 +
      (entity.fresh ? 5 : 0) +
      Math.min(degree.get(entity.key) ?? 0, 10) * 0.1;
    return { entity, position, score };
  });
  ranked.sort((a, b) => b.score - a.score || a.position - b.position);
  const chosen = ranked.slice(0, maxEntities);
  chosen.sort((a, b) => a.position - b.position);
  const keys = new Set(chosen.map((item) => item.entity.key));
  const relations = graph
    .relations()
    .map((relation, position) => ({ relation, position }))
    .filter((item) => keys.has(item.relation.subject) && keys.has(item.relation.object))
    .sort((a, b) => Number(b.relation.fresh) - Number(a.relation.fresh) || a.position - b.position)
    .slice(0, maxRelations)
    .sort((a, b) => a.position - b.position)
    .map((item) => item.relation);
  return {
    entities: chosen.map((item) => item.entity),
    relations,
    totalEntities: graph.entityCount,
    totalRelations: graph.relationCount,
  };
}

function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** The subgraph as prompt text: names, types, a few observations, relations with their status (and retracted or contested). No ids or times. */
export function renderSubgraph(graph: WorkingGraph, subgraph: SelectedSubgraph): string {
  if (subgraph.entities.length === 0) return "(the graph is empty)";
  const lines = [`Entities (${subgraph.entities.length} of ${subgraph.totalEntities}):`];
  for (const entity of subgraph.entities) {
    const observations = entity.observations
      .slice(0, promptGraphLimits.observationsPerEntity)
      .map((text) => clip(text, promptGraphLimits.observationLength));
    lines.push(`- ${entity.name} [${entity.type}]${observations.length > 0 ? `: ${observations.join("; ")}` : ""}`);
  }
  lines.push(`Relations (${subgraph.relations.length} of ${subgraph.totalRelations}):`);
  if (subgraph.relations.length === 0) lines.push("- (none among these entities)");
  for (const relation of subgraph.relations) {
    lines.push(
      `- ${graph.nameOf(relation.subject)} --${relation.predicate}--> ${graph.nameOf(relation.object)} (${relation.status}${relation.validity === "retracted" ? ", retracted" : relation.conflicts.length > 0 ? ", contested" : ""}, ${relation.confidence.toFixed(2)})`,
    );
  }
  return lines.join("\n");
}

/** An entity as the wire shows it. */
export function toWireEntity(entity: GraphEntity, id: string): KnowledgeEntity {
  return {
    id,
    name: entity.name,
    type: entity.type,
    observations: entity.observations,
    confidence: entity.confidence,
    validity: entity.validity,
    provenance: entity.provenance,
  };
}

/** A relation as the wire shows it (endpoints by name). */
export function toWireRelation(graph: WorkingGraph, relation: GraphRelation, id: string): KnowledgeRelation {
  return {
    id,
    subject: graph.nameOf(relation.subject),
    predicate: relation.predicate,
    object: graph.nameOf(relation.object),
    confidence: relation.confidence,
    validity: relation.validity,
    status: relation.status,
    conflictsWith: relation.conflicts.map((fact) => graph.tripleOf(fact)),
    provenance: relation.provenance,
    derivation: relation.derivation,
  };
}

/** A subgraph on the wire; elements must have ids (i.e. be stored). */
export function toWireSubgraph(
  graph: WorkingGraph,
  entities: readonly GraphEntity[],
  relations: readonly GraphRelation[],
): KnowledgeSubgraph {
  return {
    entities: entities.map((entity) => toWireEntity(entity, entity.id ?? entity.key)),
    relations: relations.map((relation) =>
      toWireRelation(graph, relation, relation.id ?? `${relation.subject}|${relation.predicate}|${relation.object}`),
    ),
  };
}

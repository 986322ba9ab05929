import type { Provenance, Triple, Validity } from "@deliberate/contracts";
import { type EntityRecord, mergeEntity } from "../algorithms/entity-merge.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { type Fact, factKey, FactIndex, negationOf } from "../algorithms/triples.ts";
import type { StoredEntity, StoredRelation } from "../storage/knowledge-graph.repository.ts";

/** An entity of the working graph; `id` is null until it is stored. */
export interface GraphEntity {
  key: string;
  id: string | null;
  name: string;
  type: string;
  observations: string[];
  confidence: number;
  validity: Validity;
  provenance: Provenance;
  /** True when this call created it. */
  fresh: boolean;
  /** True when a stored entity changed in this call. */
  changed: boolean;
}

/** A relation of the working graph, between entity keys. */
export interface GraphRelation {
  subject: string;
  predicate: string;
  object: string;
  id: string | null;
  confidence: number;
  validity: Validity;
  provenance: Provenance;
  derivation: { rule: string; premises: Triple[] } | null;
  fresh: boolean;
  changed: boolean;
}

/** What an addition carries besides its content. */
export interface ElementMeta {
  confidence: number;
  validity: Validity;
  provenance: Provenance;
  derivation?: { rule: string; premises: Triple[] } | null;
}

/** How much each validity is believed: a stronger one replaces a weaker one on upsert. */
const validityRank: Record<Validity, number> = { retracted: 0, hypothesized: 1, derived: 2, asserted: 3 };

function clampConfidence(value: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(value) ? value : 0));
}

/**
 * A session's graph in memory for one call: loaded from the store, changed by
 * the reasoning steps (no writes until the call's end, so host-executed
 * replays see the same graph), then written as a diff. Entities are keyed by
 * normalised name, relations by (subject, predicate, object).
 */
export class WorkingGraph {
  private readonly entityMap = new Map<string, GraphEntity>();
  private readonly relationMap = new Map<string, GraphRelation>();
  private created = 0;
  private readonly log: Array<{ kind: "entity" | "relation"; key: string }> = [];

  /** Loads stored elements; relations whose endpoints are missing are skipped. */
  static fromStored(entities: readonly StoredEntity[], relations: readonly StoredRelation[]): WorkingGraph {
    const graph = new WorkingGraph();
    const keyById = new Map<string, string>();
    for (const entity of entities) {
      keyById.set(entity.id, entity.key);
      graph.entityMap.set(entity.key, {
        key: entity.key,
        id: entity.id,
        name: entity.name,
        type: entity.type,
        observations: [...entity.observations],
        confidence: entity.confidence,
        validity: entity.validity,
        provenance: entity.provenance,
        fresh: false,
        changed: false,
      });
    }
    for (const relation of relations) {
      const subject = keyById.get(relation.subjectId);
      const object = keyById.get(relation.objectId);
      if (subject === undefined || object === undefined) continue;
      const fact = { subject, predicate: relation.predicate, object };
      graph.relationMap.set(factKey(fact), {
        ...fact,
        id: relation.id,
        confidence: relation.confidence,
        validity: relation.validity,
        provenance: relation.provenance,
        derivation: relation.derivation,
        fresh: false,
        changed: false,
      });
    }
    return graph;
  }

  /** Elements this call added (entities plus relations): the graph-growth measure. */
  get growth(): number {
    return this.created;
  }

  get entityCount(): number {
    return this.entityMap.size;
  }

  get relationCount(): number {
    return this.relationMap.size;
  }

  entity(key: string): GraphEntity | undefined {
    return this.entityMap.get(key);
  }

  /** The entity a name refers to (by its normalised form). */
  entityNamed(name: string): GraphEntity | undefined {
    return this.entityMap.get(normalizeEntityName(name));
  }

  entities(): GraphEntity[] {
    return [...this.entityMap.values()];
  }

  relations(): GraphRelation[] {
    return [...this.relationMap.values()];
  }

  relation(fact: Fact): GraphRelation | undefined {
    return this.relationMap.get(factKey(fact));
  }

  /** Display name of an entity key (the key itself if unknown). */
  nameOf(key: string): string {
    return this.entityMap.get(key)?.name ?? key;
  }

  /** A relation as a triple of display names. */
  tripleOf(fact: Fact): Triple {
    return { subject: this.nameOf(fact.subject), predicate: fact.predicate, object: this.nameOf(fact.object) };
  }

  /** Facts currently believed (every validity but retracted), as an index for joins and searches. */
  believedFacts(): FactIndex {
    return new FactIndex(this.relations().filter((relation) => relation.validity !== "retracted"));
  }

  retractedFacts(): Fact[] {
    return this.relations().filter((relation) => relation.validity === "retracted");
  }

  /**
   * Adds an entity or merges it into the one with the same normalised name.
   * A stronger validity replaces a weaker one (with its provenance); equal
   * validity keeps the higher confidence.
   */
  upsertEntity(record: EntityRecord, meta: ElementMeta): { key: string; created: boolean } {
    const key = normalizeEntityName(record.name);
    const current = this.entityMap.get(key);
    if (!current) {
      this.entityMap.set(key, {
        key,
        id: null,
        name: record.name.trim(),
        type: record.type.trim() || "concept",
        observations: [...mergeEntity({ key, name: record.name, type: record.type, observations: [] }, record).observations],
        confidence: clampConfidence(meta.confidence),
        validity: meta.validity,
        provenance: meta.provenance,
        fresh: true,
        changed: false,
      });
      this.created += 1;
      this.log.push({ kind: "entity", key });
      return { key, created: true };
    }
    const merged = mergeEntity(current, record);
    const stronger = validityRank[meta.validity] > validityRank[current.validity];
    const next: GraphEntity = {
      ...current,
      type: merged.type,
      observations: [...merged.observations],
      validity: stronger ? meta.validity : current.validity,
      provenance: stronger ? meta.provenance : current.provenance,
      confidence: stronger ? clampConfidence(meta.confidence) : Math.max(current.confidence, clampConfidence(meta.confidence)),
    };
    const differs =
      next.type !== current.type ||
      next.observations.length !== current.observations.length ||
      next.validity !== current.validity ||
      next.confidence !== current.confidence;
    if (differs) this.entityMap.set(key, { ...next, changed: !current.fresh });
    return { key, created: false };
  }

  /**
   * Adds a relation between two entity keys (both must exist) or strengthens
   * the one with the same (subject, predicate, object).
   */
  upsertRelation(fact: Fact, meta: ElementMeta): { created: boolean; changed: boolean } {
    const normalized = { subject: fact.subject, predicate: normalizePredicate(fact.predicate), object: fact.object };
    if (!this.entityMap.has(normalized.subject) || !this.entityMap.has(normalized.object)) {
      throw new Error(`relation ${normalized.subject} ${normalized.predicate} ${normalized.object} names an entity the graph does not have`);
    }
    const key = factKey(normalized);
    const current = this.relationMap.get(key);
    if (meta.validity === "asserted" || meta.validity === "derived") this.retractHypothesisAgainst(normalized);
    if (!current) {
      this.relationMap.set(key, {
        ...normalized,
        id: null,
        confidence: clampConfidence(meta.confidence),
        validity: meta.validity,
        provenance: meta.provenance,
        derivation: meta.derivation ?? null,
        fresh: true,
        changed: false,
      });
      this.created += 1;
      this.log.push({ kind: "relation", key });
      return { created: true, changed: false };
    }
    const stronger = validityRank[meta.validity] > validityRank[current.validity];
    const next: GraphRelation = stronger
      ? { ...current, validity: meta.validity, provenance: meta.provenance, derivation: meta.derivation ?? null, confidence: clampConfidence(meta.confidence) }
      : { ...current, confidence: Math.max(current.confidence, clampConfidence(meta.confidence)) };
    const differs = next.validity !== current.validity || next.confidence !== current.confidence;
    if (differs) this.relationMap.set(key, { ...next, changed: !current.fresh });
    return { created: false, changed: differs };
  }

  /** A hypothesized relation contradicted by an asserted or derived one (`p` vs `not_p`) is retracted, kept for provenance. */
  private retractHypothesisAgainst(fact: Fact): void {
    const key = factKey(negationOf(fact));
    const contradicted = this.relationMap.get(key);
    if (contradicted?.validity !== "hypothesized") return;
    this.relationMap.set(key, { ...contradicted, validity: "retracted", changed: !contradicted.fresh });
  }

  /**
   * Merges entity `merge` into `keep` (both must exist; `merge` must be fresh):
   * observations united, relations moved to `keep`.
   */
  mergeEntities(keep: string, merge: string): void {
    const kept = this.entityMap.get(keep);
    const merged = this.entityMap.get(merge);
    if (!kept || !merged || keep === merge) return;
    if (!merged.fresh) throw new Error(`stored entity ${merge} cannot be merged away`);
    const combined = mergeEntity(kept, merged);
    this.entityMap.set(keep, { ...kept, type: combined.type, observations: [...combined.observations], changed: kept.changed || (!kept.fresh && combined.observations.length !== kept.observations.length) });
    this.entityMap.delete(merge);
    this.created -= 1;
    for (const [key, relation] of [...this.relationMap]) {
      if (relation.subject !== merge && relation.object !== merge) continue;
      this.relationMap.delete(key);
      if (relation.fresh) this.created -= 1;
      const moved = { subject: relation.subject === merge ? keep : relation.subject, predicate: relation.predicate, object: relation.object === merge ? keep : relation.object };
      this.upsertRelation(moved, relation);
    }
  }

  /** A point in this call's additions, for `addedSince`. */
  mark(): number {
    return this.log.length;
  }

  /** Entities (display names) and relations (triples) added since `mark` that are still in the graph. */
  addedSince(mark: number): { entities: string[]; relations: Triple[] } {
    const entities: string[] = [];
    const relations: Triple[] = [];
    const seen = new Set<string>();
    for (const entry of this.log.slice(mark)) {
      if (seen.has(`${entry.kind}:${entry.key}`)) continue;
      seen.add(`${entry.kind}:${entry.key}`);
      if (entry.kind === "entity") {
        const entity = this.entityMap.get(entry.key);
        if (entity?.fresh) entities.push(entity.name);
      } else {
        const relation = this.relationMap.get(entry.key);
        if (relation?.fresh) relations.push(this.tripleOf(relation));
      }
    }
    return { entities, relations };
  }

  /** What to write: fresh elements to insert, stored ones that changed. */
  diff(): { newEntities: GraphEntity[]; changedEntities: GraphEntity[]; newRelations: GraphRelation[]; changedRelations: GraphRelation[] } {
    const entities = this.entities();
    const relations = this.relations();
    return {
      newEntities: entities.filter((entity) => entity.fresh),
      changedEntities: entities.filter((entity) => !entity.fresh && entity.changed),
      newRelations: relations.filter((relation) => relation.fresh),
      changedRelations: relations.filter((relation) => !relation.fresh && relation.changed),
    };
  }
}

import type { EpistemicStatus, Provenance, Triple, Validity } from "@deliberate/contracts";
import { contradictionsOf, findContradictions } from "../algorithms/contradictions.ts";
import { type EntityRecord, mergeEntity } from "../algorithms/entity-merge.ts";
import { derivedStatus, statusOfValidity, statusStrength, validityOfStatus } from "../algorithms/epistemic-status.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { type Fact, factKey, FactIndex } from "../algorithms/triples.ts";
import type { ClosureRecord, StoredEntity, StoredRelation } from "../store/repositories/knowledge-graph.repository.ts";
import { ClosureTracker } from "./closure-tracker.ts";

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
  /** What the fact rests on; a retracted fact keeps the status it had. */
  status: EpistemicStatus;
  /** Facts it contradicts: the winner when retracted; equally strong rivals while contested (then neither is believed). */
  conflicts: Fact[];
  provenance: Provenance;
  derivation: { rule: string; premises: Triple[] } | null;
  fresh: boolean;
  changed: boolean;
}

/** What an addition carries besides its content. */
export interface ElementMeta {
  confidence: number;
  validity: Validity;
  /** The fact's status; by default the one its validity implies (`hypothesized` with a derivation: derived_from_hypothesis). */
  status?: EpistemicStatus;
  provenance: Provenance;
  derivation?: { rule: string; premises: Triple[] } | null;
}

/** A contradiction met when a fact arrived, and how it was settled (in code, by status). */
export interface ConflictEvent {
  /** refused: the arriving fact lost to a stronger one; retracted: a weaker believed fact gave way to it; contested: equally strong, neither is believed. */
  outcome: "refused" | "retracted" | "contested";
  fact: Fact;
  status: EpistemicStatus;
  against: Array<{ fact: Fact; status: EpistemicStatus }>;
}

/** What `upsertRelation` did. */
export interface RelationUpsert {
  created: boolean;
  changed: boolean;
  /** The stronger facts that made the graph refuse this one, when it did. */
  refusedBy: Fact[] | null;
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
  /** Relations by predicate and subject (every validity), for functional-predicate checks. */
  private readonly bySubject = new Map<string, Set<string>>();
  private believedCache: FactIndex | null = null;
  /** Predicates with at most one object per subject. */
  private readonly functional = new Set<string>();
  /** Contradictions met since the last `drainConflicts`. */
  private conflictEvents: ConflictEvent[] = [];
  /** Relations whose status or belief changed: `maintain` re-checks the conclusions drawn from them. */
  private readonly changedPremises = new Set<string>();
  /** Premise key -> keys of the relations deduced from it; built on the first change that needs it. */
  private dependents: Map<string, Set<string>> | null = null;
  /** What incremental deduction starts from. */
  private closure = new ClosureTracker(null);

  /** Loads stored elements; relations whose endpoints are missing are skipped. */
  static fromStored(
    entities: readonly StoredEntity[],
    relations: readonly StoredRelation[],
    state: { closure?: ClosureRecord | null; functionalPredicates?: readonly string[] } = {},
  ): WorkingGraph {
    const graph = new WorkingGraph();
    graph.closure = new ClosureTracker(state.closure ?? null);
    for (const predicate of state.functionalPredicates ?? []) graph.functional.add(predicate);
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
    relations.forEach((relation, position) => {
      const subject = keyById.get(relation.subjectId);
      const object = keyById.get(relation.objectId);
      if (subject === undefined || object === undefined) return;
      const fact = { subject, predicate: relation.predicate, object };
      const key = factKey(fact);
      graph.relationMap.set(key, {
        subject,
        predicate: relation.predicate,
        object,
        id: relation.id,
        confidence: relation.confidence,
        validity: relation.validity,
        status: relation.status,
        conflicts: relation.conflictsWith.length === 0 ? noConflicts : relation.conflictsWith.map(factOfTriple),
        provenance: relation.provenance,
        derivation: relation.derivation,
        fresh: false,
        changed: false,
      });
      graph.indexSubject(fact, key);
      graph.closure.loaded(position, key);
    });
    return graph;
  }

  private indexSubject(fact: Fact, key: string): void {
    const group = `${fact.predicate}\u0000${fact.subject}`;
    const keys = this.bySubject.get(group);
    if (keys) keys.add(key);
    else this.bySubject.set(group, new Set([key]));
  }

  /** True when a relation is believed: neither retracted nor contested. */
  static believes(relation: GraphRelation): boolean {
    return relation.validity !== "retracted" && relation.conflicts.length === 0;
  }

  /** Elements this call added (entities plus relations that were not deduced): the graph-growth measure. */
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

  /** Facts currently believed (neither retracted nor contested), as an index for joins and searches. Do not change it. */
  believedFacts(): FactIndex {
    this.believedCache ??= new FactIndex(this.relations().filter(WorkingGraph.believes));
    return this.believedCache;
  }

  /** Drops the cached index of believed facts (after something outside the graph extended it). */
  forgetBelievedIndex(): void {
    this.believedCache = null;
  }

  /** Facts no longer believed: retracted, or contested by an equally strong rival. */
  retractedFacts(): Fact[] {
    return this.relations().filter((relation) => !WorkingGraph.believes(relation));
  }

  /** The functional predicates in force. */
  functionalPredicates(): ReadonlySet<string> {
    return this.functional;
  }

  /**
   * Declares predicates functional (at most one object per subject). Facts
   * already in the graph that now contradict are settled as if they had just
   * arrived: the weaker is retracted, equally strong ones are contested.
   */
  declareFunctional(predicates: Iterable<string>): void {
    const added = [...predicates].filter(
      (predicate) => !predicate.startsWith("not_") && !this.functional.has(predicate),
    );
    if (added.length === 0) return;
    for (const predicate of added) this.functional.add(predicate);
    const candidates = this.relations().filter(
      (relation) => WorkingGraph.believes(relation) && added.includes(relation.predicate),
    );
    for (const [first, second] of findContradictions(candidates, new Set(added))) {
      const a = this.relationMap.get(factKey(first)) as GraphRelation;
      const b = this.relationMap.get(factKey(second)) as GraphRelation;
      if (!WorkingGraph.believes(a) && a.validity === "retracted") continue;
      if (!WorkingGraph.believes(b) && b.validity === "retracted") continue;
      const [strong, weak] = statusStrength[a.status] >= statusStrength[b.status] ? [a, b] : [b, a];
      if (statusStrength[strong.status] > statusStrength[weak.status]) {
        this.retract(weak, strong);
        this.conflictEvents.push({
          outcome: "retracted",
          fact: factOf(strong),
          status: strong.status,
          against: [{ fact: factOf(weak), status: weak.status }],
        });
      } else {
        this.contest(strong, weak);
        this.conflictEvents.push({
          outcome: "contested",
          fact: factOf(strong),
          status: strong.status,
          against: [{ fact: factOf(weak), status: weak.status }],
        });
      }
    }
    this.maintain();
  }

  /** The contradictions met since the last call, oldest first. */
  drainConflicts(): ConflictEvent[] {
    const events = this.conflictEvents;
    this.conflictEvents = [];
    return events;
  }

  /** Incremental closure: the believed facts the closure has not seen and the rules it holds for; null when it must start over. */
  closureInput(): { changed: Fact[]; closedUnder: ReadonlySet<string> } | null {
    const state = this.closure.state();
    if (state === null) return null;
    const changed: Fact[] = [];
    for (const key of state.unseen) {
      const relation = this.relationMap.get(key);
      if (relation && WorkingGraph.believes(relation)) changed.push(relation);
    }
    return { changed, closedUnder: state.closedUnder };
  }

  /** Records that the believed facts are now closed under `ruleKeys` (call after adding the deductions). */
  markClosed(ruleKeys: readonly string[]): void {
    this.closure.closed(ruleKeys, this.relationMap.size);
  }

  /** The closure to keep with the session: null when it no longer holds. */
  closureRecord(): ClosureRecord | null {
    return this.closure.record();
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
        observations: [
          ...mergeEntity({ key, name: record.name, type: record.type, observations: [] }, record).observations,
        ],
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
      confidence: stronger
        ? clampConfidence(meta.confidence)
        : Math.max(current.confidence, clampConfidence(meta.confidence)),
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
   * the one with the same (subject, predicate, object). Contradictions are
   * settled here, as the fact arrives, by status: a fact contradicted by a
   * stronger believed one (asserted > derived > hypothesis) is refused; a
   * weaker believed one it contradicts is retracted (naming the winner);
   * equally strong rivals are both kept and flagged, believed by neither side.
   * Every case is logged for `drainConflicts`.
   */
  upsertRelation(fact: Fact, meta: ElementMeta): RelationUpsert {
    const normalized = { subject: fact.subject, predicate: normalizePredicate(fact.predicate), object: fact.object };
    if (!this.entityMap.has(normalized.subject) || !this.entityMap.has(normalized.object)) {
      throw new Error(
        `relation ${normalized.subject} ${normalized.predicate} ${normalized.object} names an entity the graph does not have`,
      );
    }
    const key = factKey(normalized);
    const current = this.relationMap.get(key);
    const status = meta.status ?? statusOfValidity(meta.validity, meta.derivation != null);
    const confidence = clampConfidence(meta.confidence);
    if (current && current.validity !== "retracted" && statusStrength[current.status] >= statusStrength[status]) {
      // Already believed at least as strongly: only a higher confidence is news.
      if (confidence <= current.confidence || statusStrength[current.status] > statusStrength[status])
        return { created: false, changed: false, refusedBy: null };
      this.setRelation(key, { ...current, confidence, changed: !current.fresh });
      return { created: false, changed: true, refusedBy: null };
    }
    const rivals = meta.validity === "retracted" ? [] : this.rivalsOf(normalized);
    const stronger = rivals.filter((rival) => statusStrength[rival.status] > statusStrength[status]);
    if (stronger.length > 0) {
      this.conflictEvents.push({
        outcome: "refused",
        fact: normalized,
        status,
        against: stronger.map((rival) => ({ fact: factOf(rival), status: rival.status })),
      });
      return { created: false, changed: false, refusedBy: stronger.map(factOf) };
    }
    const weaker = rivals.filter((rival) => statusStrength[rival.status] < statusStrength[status]);
    const equal = rivals.filter((rival) => statusStrength[rival.status] === statusStrength[status]);
    const validity = meta.validity === "retracted" ? "retracted" : validityOfStatus(status);
    const next: GraphRelation = {
      ...normalized,
      id: current?.id ?? null,
      confidence,
      validity,
      status,
      conflicts: meta.validity === "retracted" && current === undefined ? [] : equal.map(factOf),
      provenance: meta.provenance,
      derivation: meta.derivation ?? null,
      fresh: current?.fresh ?? true,
      changed: current ? !current.fresh : false,
    };
    this.setRelation(key, next);
    if (!current) {
      // Deduced relations are bounded by their own cap (maxDerivedFacts), not the growth budget of model proposals.
      if (next.derivation === null) this.created += 1;
      this.log.push({ kind: "relation", key });
      this.indexSubject(normalized, key);
      this.closure.created(key);
    } else {
      // A stored fact changed status or re-entered the believed set: conclusions drawn from it are re-checked.
      this.changedPremises.add(key);
      if (current.validity === "retracted" && validity !== "retracted") this.closure.invalidate();
    }
    if (next.derivation !== null) this.registerDependent(key, next);
    for (const rival of weaker) this.retract(rival, next);
    for (const rival of equal) this.contest(rival, next);
    if (weaker.length > 0)
      this.conflictEvents.push({
        outcome: "retracted",
        fact: normalized,
        status,
        against: weaker.map((rival) => ({ fact: factOf(rival), status: rival.status })),
      });
    if (equal.length > 0)
      this.conflictEvents.push({
        outcome: "contested",
        fact: normalized,
        status,
        against: equal.map((rival) => ({ fact: factOf(rival), status: rival.status })),
      });
    if (this.changedPremises.size > 0) this.maintain();
    return { created: !current, changed: current !== undefined, refusedBy: null };
  }

  /** Relations (retracted ones aside) that contradict `fact`. */
  private rivalsOf(fact: Fact): GraphRelation[] {
    const lookup = {
      has: (candidate: Fact) => {
        const relation = this.relationMap.get(factKey(candidate));
        return relation !== undefined && relation.validity !== "retracted";
      },
      withSubject: (predicate: string, subject: string) =>
        [...(this.bySubject.get(`${predicate}\u0000${subject}`) ?? [])]
          .map((key) => this.relationMap.get(key) as GraphRelation)
          .filter((relation) => relation.validity !== "retracted"),
    };
    return contradictionsOf(fact, lookup, this.functional).map(
      (rival) => this.relationMap.get(factKey(rival)) as GraphRelation,
    );
  }

  private setRelation(key: string, relation: GraphRelation): void {
    this.relationMap.set(key, relation);
    this.believedCache = null;
  }

  /** `loser` is no longer believed; it names `winner`, and its former rivals no longer count it. */
  private retract(loser: GraphRelation, winner: Fact | null): void {
    const key = factKey(loser);
    for (const rival of loser.conflicts) this.dropConflict(factKey(rival), key);
    this.setRelation(key, {
      ...loser,
      validity: "retracted",
      conflicts: winner ? [factOf(winner)] : [],
      changed: !loser.fresh,
    });
    this.closure.invalidate();
    this.changedPremises.add(key);
  }

  /** `held` and `arriving` contradict with equal strength: `held` names it too, and stops being believed. */
  private contest(held: GraphRelation, arriving: Fact): void {
    const current = this.relationMap.get(factKey(held)) as GraphRelation;
    this.setRelation(factKey(held), {
      ...current,
      conflicts: [...current.conflicts, factOf(arriving)],
      changed: !current.fresh,
    });
    this.closure.invalidate();
    this.changedPremises.add(factKey(held));
  }

  private dropConflict(key: string, gone: string): void {
    const relation = this.relationMap.get(key);
    if (!relation) return;
    const conflicts = relation.conflicts.filter((fact) => factKey(fact) !== gone);
    if (conflicts.length === relation.conflicts.length) return;
    this.setRelation(key, { ...relation, conflicts, changed: !relation.fresh });
    this.changedPremises.add(key);
  }

  /**
   * Truth maintenance over derived facts, following the changes: each
   * conclusion keeps the weakest status of its premises (re-derived when a
   * premise changed status), and one whose premise is no longer believed is
   * withdrawn (retracted; a rule may derive it again). Work is proportional to
   * the conclusions that depend on what changed.
   */
  private maintain(): void {
    const dependents = this.dependentIndex();
    while (this.changedPremises.size > 0) {
      const changed = this.changedPremises.values().next().value as string;
      this.changedPremises.delete(changed);
      for (const key of dependents.get(changed) ?? []) this.recheck(key);
    }
  }

  private recheck(key: string): void {
    const relation = this.relationMap.get(key);
    if (!relation || relation.derivation === null || relation.validity === "retracted") return;
    const premises = premiseKeysOf(relation).map((premise) => this.relationMap.get(premise));
    if (premises.some((premise) => premise !== undefined && !WorkingGraph.believes(premise))) {
      this.retract(relation, null);
      return;
    }
    const known = premises.filter((premise): premise is GraphRelation => premise !== undefined);
    if (known.length === 0 || relation.status === "asserted") return;
    const status = derivedStatus(known.map((premise) => premise.status));
    if (status === relation.status) return;
    this.setRelation(key, { ...relation, status, validity: validityOfStatus(status), changed: !relation.fresh });
    this.changedPremises.add(key);
  }

  private dependentIndex(): Map<string, Set<string>> {
    if (this.dependents === null) {
      this.dependents = new Map();
      for (const [key, relation] of this.relationMap)
        if (relation.derivation !== null) this.registerDependent(key, relation);
    }
    return this.dependents;
  }

  private registerDependent(key: string, relation: GraphRelation): void {
    if (this.dependents === null) return;
    for (const premise of premiseKeysOf(relation)) {
      const set = this.dependents.get(premise);
      if (set) set.add(key);
      else this.dependents.set(premise, new Set([key]));
    }
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
    this.entityMap.set(keep, {
      ...kept,
      type: combined.type,
      observations: [...combined.observations],
      changed: kept.changed || (!kept.fresh && combined.observations.length !== kept.observations.length),
    });
    this.entityMap.delete(merge);
    this.created -= 1;
    for (const [key, relation] of [...this.relationMap]) {
      if (relation.subject !== merge && relation.object !== merge) continue;
      this.relationMap.delete(key);
      this.bySubject.get(`${relation.predicate}\u0000${relation.subject}`)?.delete(key);
      this.believedCache = null;
      // Relations moved: the closure's count of covered relations no longer matches their order.
      this.closure.removed(key);
      if (relation.fresh && relation.derivation === null) this.created -= 1;
      const moved = {
        subject: relation.subject === merge ? keep : relation.subject,
        predicate: relation.predicate,
        object: relation.object === merge ? keep : relation.object,
      };
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
  diff(): {
    newEntities: GraphEntity[];
    changedEntities: GraphEntity[];
    newRelations: GraphRelation[];
    changedRelations: GraphRelation[];
  } {
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

/** Shared by every relation that conflicts with nothing (conflict lists are replaced, never changed in place). */
const noConflicts: Fact[] = [];

function factOf(fact: Fact): Fact {
  return { subject: fact.subject, predicate: fact.predicate, object: fact.object };
}

/** The keys of a derived relation's premises (its derivation names them by display name). */
function premiseKeysOf(relation: GraphRelation): string[] {
  return (relation.derivation?.premises ?? []).map((triple) => factKey(factOfTriple(triple)));
}

/** A stored triple (display names) as a fact over entity keys. */
function factOfTriple(triple: Triple): Fact {
  return {
    subject: normalizeEntityName(triple.subject),
    predicate: triple.predicate,
    object: normalizeEntityName(triple.object),
  };
}
